import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { createStore, type Store } from '@svc/core/store/index';
import { StepHealer, defaultHealingPolicy, type TestOutcome } from '@svc/core/execution/step-healer';
import { storeHealingKnowledge } from '@svc/core/healing/service/store-knowledge';
import { localEmbedder } from '@svc/core/healing/service/embedder';
import type { HealingKnowledge } from '@svc/core/healing/service/knowledge';
import type { EventEnvelope } from '@svc/core/contracts/events';
import type { Fingerprint } from '@svc/core/contracts/fingerprint';
import { FileTable } from '../../../packages/functions/src/local/file-table.ts';
import { createPlaywrightDriver, type PlaywrightDriver } from '../../../packages/functions/src/execution/browser/playwright-driver.ts';
import { startFixtureApp, type FixtureApp } from '../../fixtures/app/server.ts';
import { ctx, failure, step } from '../../execution/ui/helpers.ts';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runTest } from '@svc/core/execution/run-test';
import { httpExchange } from '@svc/core/execution/api/http-exchange';
import { TestDefinition } from '@svc/core/contracts/steps';
import { FsArtifacts } from '../../../packages/functions/src/execution/fs-artifacts.ts';
import { FileFingerprintStore } from '../../../packages/functions/src/execution/file-fingerprints.ts';

/**
 * The healing order on a real page (fixture app v1 → v2, where #email became
 * #user-email and kept its test id): a fresh ranking first, then the cache without
 * re-ranking, then the proven pattern, memory after the cache expired; a reverted fix is
 * never applied again; each attempt publishes healing.completed.
 */
const ORG = '0190c0de-0000-7000-8000-00000000000a';
const PROJECT = '0190c0de-0000-7000-8000-0000000000a1';
const TEST_ID = '0190c0de-0000-7000-8000-0000000000f1';
const DAY = 24 * 3600 * 1000;

let driver: PlaywrightDriver;
let v1: FixtureApp;
let v2: FixtureApp;
let stored: Fingerprint;

beforeAll(async () => {
  driver = await createPlaywrightDriver({ locateTimeoutMs: 500, assertTimeoutMs: 2_000 });
  [v1, v2] = await Promise.all([startFixtureApp({ version: 'v1' }), startFixtureApp({ version: 'v2' })]);
  const s = await driver.openSession({ baseUrl: v1.url, trace: false });
  try {
    await s.perform(step({ type: 'goto', url: '/login' }), ctx());
    const out = await s.perform(step({ type: 'fill', selector: '#email', value: 'demo@example.com' }), ctx());
    stored = out.fingerprint!;
  } finally {
    await s.close();
  }
}, 60_000);

afterAll(async () => {
  await driver?.close();
  await Promise.all([v1?.close(), v2?.close()]);
});

function world() {
  let now = Date.parse('2026-03-01T00:00:00Z');
  const clock = { now: () => new Date(now) };
  const store = createStore(new FileTable(undefined, { clock }), clock);
  const events: EventEnvelope[] = [];
  const knowledge = storeHealingKnowledge({ store, organizationId: ORG, projectId: PROJECT, embedder: localEmbedder(), publisher: { publish: async (e) => void events.push(e) }, clock });
  return { store, events, knowledge, advance: (ms: number) => (now += ms) };
}

/**
 * One broken `fill #email` on v2's login page, healed by `healer` (a new healer = a new run);
 * then the test ends with `outcome` (a heal is learned only from a test that passed).
 */
async function healOnV2(healer: StepHealer, fingerprint: Fingerprint | undefined = stored, outcome: TestOutcome = { status: 'passed' }) {
  const s = await driver.openSession({ baseUrl: v2.url, trace: false });
  try {
    await s.perform(step({ type: 'goto', url: '/login' }), ctx());
    const item = step({ type: 'fill', selector: '#email', value: 'demo@example.com' });
    const err = await failure(() => s.perform(item, ctx()));
    expect(err.kind).toBe('locator');
    const attempt = await healer.heal({ item, stored: fingerprint, session: s, ctx: ctx(), rerun: (healed) => s.perform(healed as typeof item, ctx()), error: err, testId: TEST_ID, stepIndex: 1 });
    if (attempt.healed) await attempt.settle(outcome);
    return attempt;
  } finally {
    await s.close();
  }
}

const run = (knowledge: HealingKnowledge) => new StepHealer(defaultHealingPolicy, knowledge);
const completed = (events: EventEnvelope[]) => events.filter((e) => e.event_type === 'healing.completed').map((e) => e.payload as Record<string, unknown>);

async function patternOf(store: Store) {
  const all = await store.healingPatterns.forSelector(ORG, PROJECT, '#email');
  expect(all).toHaveLength(1);
  return all[0];
}

describe('StepHealer with healing knowledge (Chromium, fixture app v1 → v2)', () => {
  it('ranks afresh, then serves the cache without re-ranking, then the proven pattern; a revert stops it', async () => {
    const { store, events, knowledge } = world();

    const first = await healOnV2(run(knowledge));
    expect(first).toMatchObject({ healed: true, heal: { original: '#email', healed: 'test_id=login-email', method: 'dom_similarity', fromCache: false } });
    let pattern = await patternOf(store);
    expect(pattern).toMatchObject({ healed_selector: 'test_id=login-email', success_count: 1, method: 'dom_similarity', pattern_type: 'selector_renamed', project_id: PROJECT });
    expect(await store.healingCache.get(ORG, { project_id: PROJECT, original_selector: '#email', url_pattern: '/login', failure_class: 'not_found' })).toMatchObject({ healed_selector: 'test_id=login-email' });
    expect((await store.memory.list(ORG)).map((m) => m.namespace).sort()).toEqual(['failures', 'fixes']);
    expect(completed(events)).toEqual([expect.objectContaining({ test_id: TEST_ID, success: true, original_selector: '#email', healed_selector: 'test_id=login-email', healing_method: 'dom_similarity', from_cache: false, applied: true })]);

    // No fingerprint this time: only the cache can answer, so a hit proves there was no ranking.
    const second = await healOnV2(run(knowledge), undefined);
    expect(second).toMatchObject({ healed: true, heal: { healed: 'test_id=login-email', method: 'cache', fromCache: true } });
    expect(completed(events)[1]).toMatchObject({ success: true, healing_method: 'cache', from_cache: true, applied: true });
    expect((await store.healingCache.get(ORG, { project_id: PROJECT, original_selector: '#email', url_pattern: '/login', failure_class: 'not_found' }))?.hit_count).toBe(1);

    // Two successes: the pattern is proven and comes first.
    const third = await healOnV2(run(knowledge), undefined);
    expect(third).toMatchObject({ healed: true, heal: { method: 'pattern' } });
    pattern = await patternOf(store);
    expect(pattern.success_count).toBe(3);
    expect(await store.healingPatterns.stats(ORG)).toMatchObject({ heals_applied: 3, heals_failed: 0, cache_hits: 1, by_method: { dom_similarity: 1, cache: 1, pattern: 1 } });

    // A person reverts it: no pattern, no cache, no memory, not even a fresh ranking applies it again.
    await store.healingPatterns.revert(ORG, pattern.id, 'user:reviewer');
    await store.healingCache.invalidate(ORG, PROJECT, '#email', pattern.healed_selector);
    const afterRevert = await healOnV2(run(knowledge));
    expect(afterRevert.healed).toBe(false);
    if (!afterRevert.healed) expect(afterRevert.reason).toContain('a person reverted this fix');
    expect(completed(events).at(-1)).toMatchObject({ success: false, healed_selector: null, applied: false });
    expect((await store.healingPatterns.get(ORG, pattern.id))?.reverted_by).toBe('user:reviewer');
  }, 120_000);

  it('heals one element once per run and reuses the result', async () => {
    const { events, knowledge } = world();
    const healer = run(knowledge);
    expect(await healOnV2(healer)).toMatchObject({ healed: true, heal: { method: 'dom_similarity' } });
    expect(await healOnV2(healer, undefined)).toMatchObject({ healed: true, heal: { method: 'run', healed: 'test_id=login-email' } });
    expect(completed(events)).toHaveLength(1);
  }, 60_000);

  it('after the 7-day cache expires, memory of the same failure still supplies the fix', async () => {
    const { knowledge, advance } = world();
    expect(await healOnV2(run(knowledge))).toMatchObject({ healed: true, heal: { method: 'dom_similarity' } });
    advance(8 * DAY);
    expect(await healOnV2(run(knowledge), undefined)).toMatchObject({ healed: true, heal: { method: 'memory', healed: 'test_id=login-email' } });
  }, 60_000);

  it('refuses a remembered fix whose element is not on the page, and ranks instead', async () => {
    const { store, knowledge } = world();
    await store.healingCache.put(ORG, { project_id: PROJECT, original_selector: '#email', url_pattern: '/login', failure_class: 'not_found', healed_selector: 'test_id=gone', healed_locator: { test_id: 'gone' }, confidence: 0.95, method: 'dom_similarity', pattern_id: null });
    expect(await healOnV2(run(knowledge))).toMatchObject({ healed: true, heal: { method: 'dom_similarity', healed: 'test_id=login-email' } });
  }, 60_000);

  it('a heal whose test then failed is not learned, nor reused by the run; a remembered fix whose test failed counts against it', async () => {
    const { store, events, knowledge } = world();
    const failed: TestOutcome = { status: 'failed', message: 'assertion 1 (text of "h1"): expected "Welcome", received "Sign in"' };
    const healer = run(knowledge);
    expect(await healOnV2(healer, stored, failed)).toMatchObject({ healed: true, heal: { method: 'dom_similarity' } });
    expect(await store.healingPatterns.forSelector(ORG, PROJECT, '#email')).toEqual([]);
    expect(await store.healingCache.get(ORG, { project_id: PROJECT, original_selector: '#email', url_pattern: '/login', failure_class: 'not_found' })).toBeUndefined();
    expect(await store.memory.list(ORG)).toEqual([]);
    expect(completed(events)).toEqual([expect.objectContaining({ success: false, healed_selector: null, applied: false })]);
    // The run's next test ranks afresh instead of reusing it as a fix made earlier in this run.
    expect(await healOnV2(healer)).toMatchObject({ healed: true, heal: { method: 'dom_similarity' } });
    const pattern = await patternOf(store);
    expect(pattern).toMatchObject({ success_count: 1, failure_count: 0 });
    // That fix, now cached, serves a later run whose test fails: it counts against the pattern and leaves the cache.
    expect(await healOnV2(run(knowledge), undefined, failed)).toMatchObject({ healed: true, heal: { method: 'cache' } });
    expect(await store.healingPatterns.get(ORG, pattern.id)).toMatchObject({ success_count: 1, failure_count: 1 });
    expect(await store.healingCache.get(ORG, { project_id: PROJECT, original_selector: '#email', url_pattern: '/login', failure_class: 'not_found' })).toBeUndefined();
  }, 120_000);

  it('drops a cached fix whose re-run fails and counts it against its pattern', async () => {
    const { store, knowledge } = world();
    const bad = await store.healingPatterns.create(ORG, { project_id: PROJECT, pattern_type: 'selector_renamed', original_selector: '#email', healed_selector: '#remember-me', healed_locator: '#remember-me', confidence: 0.9, method: 'dom_similarity' });
    const key = { project_id: PROJECT, original_selector: '#email', url_pattern: '/login', failure_class: 'not_found' };
    // A checkbox cannot be filled: the re-run fails, so the fix is not applied.
    await store.healingCache.put(ORG, { ...key, healed_selector: '#remember-me', healed_locator: '#remember-me', confidence: 0.9, method: 'dom_similarity', pattern_id: bad.id });
    const attempt = await healOnV2(run(knowledge));
    expect(attempt).toMatchObject({ healed: true, heal: { method: 'dom_similarity', healed: 'test_id=login-email' } });
    expect((await store.healingPatterns.get(ORG, bad.id))?.failure_count).toBe(1);
    expect((await store.healingCache.get(ORG, key))?.healed_selector).toBe('test_id=login-email');
  }, 60_000);

  it('a test that fails after a heal says so in its error, and the heal is not learned (runTest, the runner that settles it)', async () => {
    const { store, knowledge } = world();
    const dir = await mkdtemp(join(tmpdir(), 'svc-heal-settle-'));
    try {
      const fingerprints = new FileFingerprintStore(dir);
      await fingerprints.save(TEST_ID, { 1: stored });
      const test = TestDefinition.parse({
        name: 'signs in', type: 'ui',
        steps: [{ type: 'goto', url: '/login' }, { type: 'fill', selector: '#email', value: 'demo@example.com' }],
        assertions: [{ type: 'text', selector: 'h1', equals: 'A heading this page does not have', timeout_ms: 300 }],
      });
      const result = await runTest(TEST_ID, test, { ui: async () => driver, http: httpExchange, artifacts: new FsArtifacts(join(dir, 'artifacts')), baseUrl: v2.url, environment: {}, secrets: {}, traceOnFailure: false, fingerprints, healer: run(knowledge) });
      expect(result.status).toBe('failed');
      expect(result.error_message).toContain('(healed earlier in this test: step 2 #email → test_id=login-email (confidence');
      expect(result.error_message).toContain('is not learned from a failed test)');
      expect(await store.healingPatterns.forSelector(ORG, PROJECT, '#email')).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
