import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { TestDefinition } from '@svc/core/contracts/steps';
import type { SuiteTest } from '@svc/core/execution/run-suite';
import { uniqueFileSlug } from '@svc/core/export/file-names';
import type { PlaywrightDriver } from '../execution/browser/playwright-driver.ts';
import { crawl, type CrawlResult } from '../discovery/crawler.ts';
import { testsFromCrawl } from '../discovery/tests-from-crawl.ts';

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
  const found = testsFromCrawl(result, { hasSecret: (name) => options.secrets[name] !== undefined, secretHint: (name) => `SVC_SECRET_${name}`, runsAgainst: options.url });
  const definitions: TestDefinition[] = found.tests.map((t) => t.definition);
  const skipped = found.skipped;

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
