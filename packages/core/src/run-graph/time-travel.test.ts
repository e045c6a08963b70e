import { describe, expect, it } from 'vitest';
import { diffStates, stableJson } from './time-travel.ts';
import { definitionOf } from './spec-to-definition.ts';
import { fitEvent } from './event-log.ts';
import { TestSpecSchema } from '../contracts/test-spec.ts';

describe('diffStates', () => {
  it('names added, removed, changed and unchanged fields, per test and per graph entry', () => {
    const a = { app_url: 'u', passed_count: 0, test_results: [{ test_id: 'x', status: 'PASSED' }], graph: { routes: { analyze_code: 'plan_tests' }, stop: null }, gone: 1 };
    const b = { app_url: 'u', passed_count: 1, test_results: [{ status: 'PASSED', test_id: 'x' }, { test_id: 'y', status: 'FAILED' }], graph: { routes: { analyze_code: 'plan_tests', report: 'end' }, stop: null } };
    expect(diffStates(a, b)).toEqual({
      added: ['graph.routes.report', 'test_results.y'],
      removed: ['gone'],
      changed: ['passed_count'],
      unchanged: ['app_url', 'graph.routes.analyze_code', 'graph.stop', 'test_results.x'],
    });
  });

  it('ignores key order', () => {
    expect(stableJson({ a: 1, b: { d: 2, c: 3 } })).toBe(stableJson({ b: { c: 3, d: 2 }, a: 1 }));
  });
});

describe('definitionOf', () => {
  const spec = (over: Record<string, unknown>) => TestSpecSchema.parse({ id: 't', type: 'API', name: 'n', steps: [{ type: 'request', url: '/x' }], ...over });
  it('maps a planned test to the runner\'s definition, capping the timeout at 10 minutes', () => {
    const d = definitionOf(spec({ timeout_seconds: 600, priority: 'HIGH' }));
    expect(d).toMatchObject({ ok: true, definition: { type: 'api', priority: 'high', timeout_ms: 600_000 } });
  });
  it('says why a test cannot run', () => {
    expect(definitionOf(spec({ type: 'UNIT' }))).toMatchObject({ ok: false, message: expect.stringMatching(/UNIT/) });
    expect(definitionOf(spec({ steps: [] }))).toEqual({ ok: false, message: 'the test has no steps' });
  });
});

describe('fitEvent', () => {
  it('keeps small events as they are and shrinks large ones below one item, saying so', () => {
    expect(fitEvent('log', { level: 'info', message: 'hi' })).toEqual({ level: 'info', message: 'hi' });
    const big = fitEvent('state_update', { state: { test_results: [{ test_id: 'a', metadata: { steps: 'x'.repeat(400_000) } }], messages: [] } });
    expect(big.truncated).toBe('test_results[].metadata');
    expect(JSON.stringify(big).length).toBeLessThan(350_000);
    expect(fitEvent('screenshot', { base64: 'x'.repeat(400_000), step: 1 })).toMatchObject({ base64: '', step: 1, truncated: expect.any(String) });
  });
});
