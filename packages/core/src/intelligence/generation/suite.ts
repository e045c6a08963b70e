import { z } from 'zod';
import { Step, type TestDefinition } from '../../contracts/steps.ts';
import { parsePlainLanguage, testType, toTestDefinition, type PlainLanguageResult } from './plain-language.ts';
import { reviewTest, type Review } from './review.ts';
import { onPathPattern } from '../discovery/urls.ts';
import { generatedTimeout } from './timeout.ts';

/** A flow found by discovery whose steps are already in the product's step format. */
export const FlowInput = z.strictObject({
  name: z.string().trim().min(1).max(255).describe('Flow name, e.g. "Sign in"'),
  flow_type: z.string().max(100).optional().describe('authentication, form, navigation, crud, search …'),
  url: z.string().max(8000).optional().describe('Page the flow starts on'),
  steps: z.array(Step).min(1).max(500).describe('Steps in the product format (docs/test-format.md)'),
});
export type FlowInput = z.output<typeof FlowInput>;

export interface GeneratedFromSpec {
  test: TestDefinition;
  confidence: number;
  review: Review;
  parse?: Pick<PlainLanguageResult, 'understood' | 'not_understood'>;
}

const SMOKE_INTENT = /^\s*(smoke|smoke test|loads?|page loads?|it loads|renders?|is up|available|check the page|open(s)? without errors?)\s*\.?\s*$/i;

/** A page answers without an HTTP error (redirects followed). */
const PAGE_OK = [200, 201, 202, 203, 204, 205, 206];

/**
 * The URL a generated test opens: a path when it is on the app's origin (`appOrigins`: the
 * project's app URL, the base URL of the run), so the test runs against any copy of the app
 * and its review has no absolute-url finding; else as given.
 */
export function pageOnApp(url: string, appOrigins: ReadonlyArray<string | null | undefined> = []): string {
  if (!URL.canParse(url)) return url;
  const u = new URL(url);
  const origins = appOrigins.filter((o): o is string => !!o && URL.canParse(o)).map((o) => new URL(o).origin);
  return origins.includes(u.origin) ? `${u.pathname}${u.search}${u.hash}` : url;
}

/**
 * A test for one page from a spec: the page URL plus an intent in plain language ("fill
 * "Email" with … and click "Sign in", expect heading "Welcome"), or a smoke intent
 * ("smoke", "page loads") for a test that the page opens, stays on its own path, has a title
 * and shows content, and answers without an HTTP error. A title and some text alone passed
 * on a 404 page or on the sign-in page a guard sent the browser to (found by QA).
 * `pageStatus: false` leaves the HTTP check out: its GET has no cookie jar, so for a page
 * behind a sign-in it would ask signed out (discovery's signed-in smoke tests).
 */
export function generateFromSpec(spec: { url: string; intent?: string; name?: string; appOrigins?: ReadonlyArray<string | null | undefined>; pageStatus?: boolean }): GeneratedFromSpec {
  const url = pageOnApp(spec.url, spec.appOrigins);
  if (!spec.intent || SMOKE_INTENT.test(spec.intent)) {
    const path = new URL(url, 'http://x').pathname;
    const status = spec.pageStatus !== false;
    const test: TestDefinition = {
      name: (spec.name ?? `smoke: ${url}`).slice(0, 255),
      description: `The page ${url} opens, stays on ${path}, has a title${status ? ', shows content and answers without an HTTP error' : ' and shows content'}`,
      type: 'ui',
      priority: 'high',
      tags: ['generated', 'smoke'],
      timeout_ms: 60_000,
      parameters: {},
      parameter_sets: [],
      steps: [
        { type: 'goto', url },
        { type: 'assert', assertion: { type: 'url', matches: `^${onPathPattern(path)}` }, name: `it stays on ${path}` },
        { type: 'assert', assertion: { type: 'title', matches: '\\S' }, name: 'the page has a title' },
        { type: 'assert', assertion: { type: 'text', selector: 'body', matches: '\\S' }, name: 'the page shows content' },
        ...(status
          ? ([
              { type: 'request', method: 'GET', url, name: `GET ${url}` },
              { type: 'assert', assertion: { type: 'status', in: PAGE_OK }, name: 'the page answers without an HTTP error' },
            ] as const)
          : []),
      ],
      assertions: [],
    };
    return { test, confidence: 0.9, review: reviewTest(test) };
  }
  const parsed = parsePlainLanguage(spec.intent);
  if (parsed.steps.length && parsed.steps[0].type !== 'goto') parsed.steps.unshift({ type: 'goto', url });
  if (!parsed.steps.length) parsed.steps.push({ type: 'goto', url });
  parsed.type = testType(parsed.steps);
  const test = toTestDefinition(parsed, { name: spec.name });
  return { test, confidence: parsed.confidence, review: reviewTest(test), parse: { understood: parsed.understood, not_understood: parsed.not_understood } };
}

/** A test from a discovered flow (its steps are already executable). */
export function generateFromFlow(flow: FlowInput): GeneratedFromSpec {
  const steps = [...flow.steps];
  if (flow.url && steps[0]?.type !== 'goto' && testType(steps) === 'ui') steps.unshift({ type: 'goto', url: flow.url });
  const test: TestDefinition = {
    name: flow.name.slice(0, 255),
    description: `Generated from a discovered ${flow.flow_type ?? ''} flow`.replace(/\s+/g, ' '),
    type: testType(steps),
    priority: flow.flow_type === 'authentication' ? 'critical' : flow.flow_type === 'crud' || flow.flow_type === 'form' ? 'high' : 'medium',
    tags: ['generated', 'discovery', ...(flow.flow_type ? [flow.flow_type] : [])],
    timeout_ms: generatedTimeout(steps),
    parameters: {},
    parameter_sets: [],
    steps,
    assertions: [],
  };
  const review = reviewTest(test);
  // Flows are replayed from a crawl: certain steps, but a flow that checks nothing proves little.
  const confidence = review.findings.some((f) => f.rule === 'no-assertions') ? 0.6 : 0.85;
  return { test, confidence, review };
}
