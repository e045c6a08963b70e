import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { TestDefinition } from '@svc/core/contracts/steps';
import { secretsReferenced } from '@svc/core/execution/variables';
import type { SuiteTest } from '@svc/core/execution/run-suite';
import { generateFromFlow, generateFromSpec } from '@svc/core/intelligence/generation/suite';
import { uniqueFileSlug } from '@svc/core/export/file-names';
import type { PlaywrightDriver } from '../execution/browser/playwright-driver.ts';
import { crawl, type CrawlResult } from '../discovery/crawler.ts';

export interface DiscoveredSuite {
  tests: SuiteTest[];
  /** Flows that did not become tests, and why (said to the user, never dropped silently). */
  skipped: Array<{ name: string; reason: string }>;
  crawl: CrawlResult;
  /** Where the generated test files were written (the user can keep and edit them). */
  folder: string;
}

export interface DiscoverOptions {
  url: string;
  maxPages: number;
  /** Secrets the run has (SVC_SECRET_*): a sign-in flow needs {{secrets.USERNAME}} and {{secrets.PASSWORD}}. */
  secrets: Record<string, string>;
  out: string;
  signal?: AbortSignal;
}

/**
 * `svc run --discover`: crawl the app in Chromium (within its origin, never following
 * logout or destructive links, never submitting a form), then turn what was found into
 * tests with the deterministic generators — a smoke test per page and a test per
 * discovered flow (sign-in, forms, create-item, navigation). They are written as test
 * files under <out>/generated-tests and then run like any other suite, so a generated
 * test is reported as passing only when it passed.
 */
export async function discoverTests(driver: PlaywrightDriver, options: DiscoverOptions): Promise<DiscoveredSuite> {
  const result = await crawl(driver, { startUrl: options.url, maxPages: options.maxPages, strategy: 'breadth_first', signal: options.signal });
  const definitions: TestDefinition[] = [];
  const skipped: DiscoveredSuite['skipped'] = [];

  for (const page of result.pages) {
    if (page.partial) {
      skipped.push({ name: `smoke: ${page.url}`, reason: 'the page did not finish loading during discovery' });
      continue;
    }
    if ((page.status ?? 200) >= 400) {
      skipped.push({ name: `smoke: ${page.url}`, reason: `the page answered HTTP ${page.status}` });
      continue;
    }
    if (page.json) continue; // API resources are not pages; a smoke test would check an HTML title
    definitions.push(generateFromSpec({ url: page.url, name: `${page.title || page.page_type} loads (${pathOf(page.url)})` }).test);
  }

  for (const flow of result.flows) {
    const missing = secretsReferenced(flow.steps).filter((name) => options.secrets[name] === undefined);
    if (missing.length) {
      skipped.push({ name: flow.name, reason: `needs ${missing.map((n) => `SVC_SECRET_${n}`).join(' and ')}: sign-in flows use the user name and password of a test account` });
      continue;
    }
    definitions.push(generateFromFlow({ name: flow.name, flow_type: flow.flow_type, url: flow.url, steps: flow.steps }).test);
  }

  const folder = join(options.out, 'generated-tests');
  await mkdir(folder, { recursive: true });
  const tests: SuiteTest[] = [];
  const used = new Set<string>();
  for (const definition of definitions) {
    const file = `${uniqueFileSlug(definition.name, used)}.json`;
    const id = `generated-tests/${file}`;
    await writeFile(join(folder, file), JSON.stringify(definition, null, 2) + '\n');
    tests.push({ id, definition, metadata: { file: id, generated: true } });
  }
  return { tests, skipped, crawl: result, folder };
}

function pathOf(url: string): string {
  const u = new URL(url);
  return `${u.pathname}${u.hash}`;
}
