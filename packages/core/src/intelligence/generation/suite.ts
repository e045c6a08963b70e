import { z } from 'zod';
import { Step, type TestDefinition } from '../../contracts/steps.ts';
import { parsePlainLanguage, testType, toTestDefinition, type PlainLanguageResult } from './plain-language.ts';
import { reviewTest, type Review } from './review.ts';

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

/**
 * A test for one page from a spec: the page URL plus an intent in plain language ("fill
 * "Email" with … and click "Sign in", expect heading "Welcome"), or a smoke intent
 * ("smoke", "page loads") for a test that the page opens, has a title and shows content.
 */
export function generateFromSpec(spec: { url: string; intent?: string; name?: string }): GeneratedFromSpec {
  if (!spec.intent || SMOKE_INTENT.test(spec.intent)) {
    const test: TestDefinition = {
      name: (spec.name ?? `smoke: ${spec.url}`).slice(0, 255),
      description: `The page ${spec.url} opens, has a title and shows content`,
      type: 'ui',
      priority: 'high',
      tags: ['generated', 'smoke'],
      timeout_ms: 60_000,
      parameters: {},
      parameter_sets: [],
      steps: [
        { type: 'goto', url: spec.url },
        { type: 'assert', assertion: { type: 'title', matches: '\\S' }, name: 'the page has a title' },
        { type: 'assert', assertion: { type: 'text', selector: 'body', matches: '\\S' }, name: 'the page shows content' },
      ],
      assertions: [],
    };
    return { test, confidence: 0.9, review: reviewTest(test) };
  }
  const parsed = parsePlainLanguage(spec.intent);
  if (parsed.steps.length && parsed.steps[0].type !== 'goto') parsed.steps.unshift({ type: 'goto', url: spec.url });
  if (!parsed.steps.length) parsed.steps.push({ type: 'goto', url: spec.url });
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
    timeout_ms: 60_000,
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
