import { describe, expect, it } from 'vitest';
import { parseEvent, partitionKeyFor, type EventEnvelope } from '../contracts/events.ts';
import * as p from './producers.ts';
import { checkEvent } from './validate.ts';

const id = () => crypto.randomUUID();
const ctx = (source: string) => ({ source, tenant_id: 'org-1', correlation_id: 'req-1' });
/** Schema-valid after a JSON round trip (what a consumer receives). */
const valid = (e: EventEnvelope) => {
  const back = parseEvent(JSON.parse(JSON.stringify(e)));
  expect(checkEvent(back)).toEqual(back);
  expect(back.correlation_id).toBe('req-1');
  return back;
};

describe('producers (emission rules 1-5)', () => {
  it('rule 1: test.created carries test_id, test_name, test_type, project_id, test_spec', () => {
    const e = valid(p.testCreated(ctx(p.eventSources.api), { test_id: id(), test_name: 'login', test_type: 'ui', project_id: id(), test_spec: { steps: [] } }));
    expect(Object.keys(e.payload)).toEqual(expect.arrayContaining(['test_id', 'test_name', 'test_type', 'project_id', 'test_spec']));
    expect(e.event_type).toBe('test.created');
  });

  it('rule 2: codebase.ingested carries project_id and codebase_path, keyed by project', () => {
    const project_id = id();
    const e = valid(p.codebaseIngested(ctx(p.eventSources.api), { project_id, codebase_path: '/repos/shop' }));
    expect(e.payload).toMatchObject({ project_id, codebase_path: '/repos/shop' });
    expect(partitionKeyFor(e)).toBe(project_id);
  });

  it('rule 3: test.failed carries test_id and failure_details', () => {
    const e = valid(p.testFailed(ctx(p.eventSources.browserWorker), { test_id: id(), test_suite_id: 'suite-9', failure_details: { error_message: 'no #buy', failure_type: 'selector_not_found', selector: '#buy' } }));
    expect(e.payload.failure_details).toMatchObject({ selector: '#buy' });
    expect(partitionKeyFor(e)).toBe('suite-9');
    expect(() => p.testFailed(ctx('svc.x'), { test_id: id() } as never)).toThrow(/failure_details/);
  });

  it('rule 4: healing.completed from cache or healer, success or not, keyed by test', () => {
    const test_id = id();
    const hit = valid(p.healingCompleted(ctx(p.eventSources.healer), { test_id, success: true, original_selector: '#buy', healed_selector: '[data-test=buy]', confidence: 0.93, applied: true, from_cache: true, healing_method: 'cache' }));
    expect(partitionKeyFor(hit)).toBe(test_id);
    const miss = valid(p.healingCompleted(ctx(p.eventSources.healer), { test_id, success: false, healed_selector: null, confidence: 0, applied: false }));
    expect(miss.payload.from_cache).toBe(false);
    const review = valid(p.healingCompleted(ctx(p.eventSources.healer), { test_id, success: true, healed_selector: '#b', confidence: 0.6, applied: false }));
    expect(review.payload.applied).toBe(false);
  });

  it('rule 4: refuses a healing result that breaks the healing rules', () => {
    expect(() => p.healingCompleted(ctx('svc.healer'), { test_id: id(), success: true, healed_selector: '#b', confidence: 0.79, applied: true })).toThrow(/threshold/);
    expect(() => p.healingCompleted(ctx('svc.healer'), { test_id: id(), success: false, healed_selector: '#b', confidence: 0, applied: false })).toThrow(/unsuccessful/);
  });

  it('rule 5: codebase.analyzed after the knowledge worker finishes', () => {
    const e = valid(p.codebaseAnalyzed(ctx(p.eventSources.knowledgeWorker), { project_id: id(), codebase_path: '/repos/shop', summary: 'a shop', testable_surfaces: [{ kind: 'route', path: '/cart' }], surface_count: 1 }));
    expect(e.payload.testable_surfaces).toHaveLength(1);
  });

  it('the other producers build valid envelopes too', () => {
    valid(p.testExecuted(ctx(p.eventSources.testRunner), { test_id: id(), run_id: id(), project_id: id(), status: 'failed', duration_ms: 1200, error_message: 'boom' }));
    valid(p.healingRequested(ctx(p.eventSources.api), { test_id: id(), error_message: 'not found', original_selector: '#a', requested_by: 'user-1' }));
    valid(p.failureClusterFound(ctx(p.eventSources.streamAnalytics), { cluster_id: 'fc-1', error_signature: 'timeout: <n>ms', test_ids: [id()], failure_count: 3, window_start: '2025-01-01T00:00:00Z', window_end: '2025-01-01T00:15:00Z' }));
    valid(p.vcsPullRequest(ctx(p.eventSources.webhooks), { provider: 'github', repository: 'org/repo', pr_number: 7, action: 'opened' }));
    valid(p.integrationError(ctx(p.eventSources.webhooks), { provider: 'sentry', error_id: 'E1', message: 'TypeError' }));
  });
});
