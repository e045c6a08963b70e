import type { TestDefinition } from '@svc/core/contracts/steps';
import { secretsReferenced } from '@svc/core/execution/variables';
import { generateFromFlow, generateFromSpec } from '@svc/core/intelligence/generation/suite';
import type { CrawlResult } from './crawler.ts';

export interface CrawlTests {
  /** A smoke test per page that loaded, then a test per discovered flow; `kind` is `smoke` or the flow's type. */
  tests: Array<{ definition: TestDefinition; kind: string }>;
  /** What did not become a test, and why (said to the user, never dropped silently). */
  skipped: Array<{ name: string; reason: string }>;
}

/**
 * What a crawl found, as tests, with the deterministic generators (no model): a smoke test
 * per page that loaded (it opens, has a title, shows content; JSON resources are not pages)
 * and a test per flow — sign-in, forms, create-item, navigation. A flow that uses a secret
 * the run will not have (a sign-in flow's user name and password) is skipped, naming how
 * to provide it: `secretHint(name)` (SVC_SECRET_<NAME> for the CLI, the project's
 * environment on the server).
 */
export function testsFromCrawl(result: CrawlResult, o: { hasSecret: (name: string) => boolean; secretHint: (name: string) => string }): CrawlTests {
  const tests: CrawlTests['tests'] = [];
  const skipped: CrawlTests['skipped'] = [];
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
    tests.push({ definition: generateFromSpec({ url: page.url, name: `${page.title || page.page_type} loads (${pathOf(page.url)})` }).test, kind: 'smoke' });
  }
  for (const flow of result.flows) {
    const missing = secretsReferenced(flow.steps).filter((name) => !o.hasSecret(name));
    if (missing.length) {
      skipped.push({ name: flow.name, reason: `needs ${missing.map(o.secretHint).join(' and ')}: sign-in flows use the user name and password of a test account` });
      continue;
    }
    tests.push({ definition: generateFromFlow({ name: flow.name, flow_type: flow.flow_type, url: flow.url, steps: flow.steps }).test, kind: flow.flow_type });
  }
  return { tests, skipped };
}

function pathOf(url: string): string {
  const u = new URL(url);
  return `${u.pathname}${u.hash}`;
}
