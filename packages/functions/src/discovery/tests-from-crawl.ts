import type { TestDefinition } from '@svc/core/contracts/steps';
import { secretsReferenced } from '@svc/core/execution/variables';
import { onPathPattern } from '@svc/core/intelligence/discovery/urls';
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
export function testsFromCrawl(result: CrawlResult, o: { hasSecret: (name: string) => boolean; secretHint: (name: string) => string; runsAgainst?: string | null }): CrawlTests {
  const tests: CrawlTests['tests'] = [];
  const skipped: CrawlTests['skipped'] = [];
  // Paths only when the tests run against the crawled origin; a crawl of another host keeps its URLs.
  const origin = o.runsAgainst && URL.canParse(o.runsAgainst) && new URL(o.runsAgainst).origin === new URL(result.startUrl).origin ? new URL(result.startUrl).origin : null;
  // A crawl that signed in saw the pages behind the sign-in; their tests sign in first (the
  // account comes from the project's secrets), or they would open the sign-in page instead.
  const signIn = signInSteps(result);
  const signInMissing = signIn ? secretsReferenced(signIn).filter((name) => !o.hasSecret(name)) : [];
  // Every page, the sign-in page too: the crawl saw it signed in (a signed-in visitor may be sent on from it).
  const signsIn = !!signIn && !signInMissing.length;
  const signedIn = (test: TestDefinition): TestDefinition =>
    signsIn ? { ...test, steps: [...signIn!, ...test.steps], description: `Signed in with the project's test account: ${test.description ?? test.name}` } : test;
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
    // A signed-in page's test has no page-status check: its GET has no cookie jar, so it
    // would ask signed out (an app answering 401 to that would fail a page that works).
    tests.push({ definition: relativeTo(origin, signedIn(smokeTest(page, { pageStatus: !signsIn }))), kind: 'smoke' });
  }
  for (const flow of result.flows) {
    const missing = secretsReferenced(flow.steps).filter((name) => !o.hasSecret(name));
    if (missing.length) {
      const behind = flow.flow_type === 'authentication' && signIn ? '; the crawl signed in, so the tests of the pages behind the sign-in need them too (without, they fail on the sign-in page)' : '';
      skipped.push({ name: flow.name, reason: `needs ${missing.map(o.secretHint).join(' and ')}: sign-in flows use the user name and password of a test account${behind}` });
      continue;
    }
    const test = generateFromFlow({ name: flow.name, flow_type: flow.flow_type, url: flow.url, steps: flow.steps }).test;
    tests.push({ definition: relativeTo(origin, flow.flow_type === 'authentication' ? test : signedIn(test)), kind: flow.flow_type });
  }
  return { tests, skipped };
}

/**
 * A page's smoke test: it opens, stays on its own path, has a title, shows content and
 * answers without an HTTP error (generateFromSpec). The
 * path check is what makes it about this page: a sign-in guard that sends the browser to
 * /login (or /login?next=/dashboard) would otherwise pass on the other page. A page that
 * sent the browser elsewhere during discovery is named by both and checks that it still
 * lands there.
 */
function smokeTest(page: CrawlResult['pages'][number], o: { pageStatus: boolean }): TestDefinition {
  const landed = page.redirectedTo && new URL(page.redirectedTo).origin === new URL(page.url).origin ? pathOf(page.redirectedTo) : undefined;
  const name = `${page.title || page.page_type} loads (${pathOf(page.url)}${landed ? ` → ${landed}` : ''})`;
  const test = generateFromSpec({ url: page.url, name, pageStatus: o.pageStatus }).test;
  // The spec's own path check is replaced by this one (a page discovery saw redirect is checked where it landed).
  const [goto, , ...checks] = test.steps;
  if (!landed) return { ...test, steps: [goto, { type: 'assert', assertion: { type: 'url', matches: onPath(new URL(page.url).pathname) }, name: `it stays on ${pathOf(page.url)}` }, ...checks] };
  // The path only: a query the app adds on the way (?next=…, a nonce) is not the point.
  const where = new URL(page.redirectedTo!).pathname;
  return {
    ...test,
    description: `The page ${pathOf(page.url)} leads to ${landed}, which opens, has a title and shows content`,
    steps: [goto, { type: 'assert', assertion: { type: 'url', matches: onPath(where) }, name: `it leads to ${landed}` }, ...checks],
  };
}

/** A URL on exactly this path, on any host (the run's app URL), with any query or fragment. */
function onPath(pathname: string): string {
  return `^${onPathPattern(pathname)}`;
}

/**
 * The sign-in flow the crawl itself used (validated): what a test does first to be signed in.
 * Its checks stay (the password field is gone, it lands where discovery's sign-in did): they
 * wait until the sign-in has finished, so the next goto does not cut it short.
 */
function signInSteps(result: CrawlResult): TestDefinition['steps'] | undefined {
  if (!result.login?.ok) return undefined;
  return result.flows.find((f) => f.flow_type === 'authentication' && f.validated)?.steps;
}

/**
 * Pages of the crawled origin as paths, so the tests run against whatever app URL a run
 * gives (staging, a preview) rather than the host that was crawled. Only when the tests
 * run against that origin to begin with (`origin` null: URLs kept).
 */
function relativeTo(origin: string | null, test: TestDefinition): TestDefinition {
  if (!origin) return test;
  const steps = test.steps.map((step) => {
    if ((step.type !== 'goto' && step.type !== 'request') || !URL.canParse(step.url)) return step;
    const u = new URL(step.url);
    return u.origin === origin ? { ...step, url: `${u.pathname}${u.search}${u.hash}` } : step;
  });
  return { ...test, steps, description: test.description?.replace(`${origin}/`, '/') };
}

function pathOf(url: string): string {
  const u = new URL(url);
  return `${u.pathname}${u.hash}`;
}
