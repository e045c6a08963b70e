import { describe, it, expect } from 'vitest';
import { createStore } from '@svc/core/store/index';
import { embedLocally, localEmbedder } from '@svc/core/healing/service/embedder';
import { storeHealingKnowledge } from '@svc/core/healing/service/store-knowledge';
import { FileTable } from '../../../packages/functions/src/local/file-table.ts';

/** The healing repositories over the real local table adapter, with a clock the test moves. */
function setup() {
  let now = Date.parse('2026-01-01T00:00:00Z');
  const clock = { now: () => new Date(now) };
  const table = new FileTable(undefined, { clock });
  return { store: createStore(table, clock), table, advance: (ms: number) => (now += ms) };
}
const ORG = '0190c0de-0000-7000-8000-00000000000a';
const OTHER = '0190c0de-0000-7000-8000-00000000000b';
const PROJECT = '0190c0de-0000-7000-8000-0000000000a1';
const DAY = 24 * 3600 * 1000;

describe('healing patterns', () => {
  it('records, finds the best proven fix, counts outcomes and reverts without deleting', async () => {
    const { store } = setup();
    const weak = await store.healingPatterns.create(ORG, { project_id: PROJECT, pattern_type: 'selector_renamed', original_selector: '#email', healed_selector: '#mail', confidence: 0.85, method: 'dom_similarity' });
    const strong = await store.healingPatterns.create(ORG, { project_id: PROJECT, pattern_type: 'selector_renamed', original_selector: '#email', healed_selector: 'test_id=login-email', healed_locator: { test_id: 'login-email' }, confidence: 0.93, method: 'dom_similarity' });
    expect(strong).toMatchObject({ success_count: 0, failure_count: 0, reverted_at: null, git_commit: null, last_used_at: null });

    // One success is not yet proof; two are.
    await store.healingPatterns.recordSuccess(ORG, strong.id);
    expect(await store.healingPatterns.bestFix(ORG, PROJECT, '#email')).toBeUndefined();
    await store.healingPatterns.recordSuccess(ORG, strong.id);
    await store.healingPatterns.recordSuccess(ORG, weak.id);
    const best = await store.healingPatterns.bestFix(ORG, PROJECT, '#email');
    expect(best).toMatchObject({ id: strong.id, success_count: 2, healed_locator: { test_id: 'login-email' } });
    expect(best!.last_used_at).not.toBeNull();

    // Other tenants and other selectors see nothing.
    expect(await store.healingPatterns.bestFix(OTHER, PROJECT, '#email')).toBeUndefined();
    expect(await store.healingPatterns.get(OTHER, strong.id)).toBeUndefined();
    expect(await store.healingPatterns.forSelector(ORG, PROJECT, '#emai')).toEqual([]);

    const reverted = await store.healingPatterns.revert(ORG, strong.id, 'user:someone');
    expect(reverted).toMatchObject({ reverted_by: 'user:someone', success_count: 2 });
    expect(reverted!.reverted_at).not.toBeNull();
    expect(await store.healingPatterns.bestFix(ORG, PROJECT, '#email')).toBeUndefined();
    expect(await store.healingPatterns.revert(OTHER, strong.id, 'user:x')).toBeUndefined();

    const active = await store.healingPatterns.list(ORG, { limit: 50, reverted: 'false' });
    expect(active.items.map((p) => p.id)).toEqual([weak.id]);
    const all = await store.healingPatterns.list(ORG, { limit: 50, min_confidence: 0.9 });
    expect(all.items.map((p) => p.id)).toEqual([strong.id]);
  });

  it('treats a fix a person applied as trusted until it fails more than it works', async () => {
    const { store } = setup();
    const manual = await store.healingPatterns.create(ORG, { project_id: PROJECT, pattern_type: 'selector_renamed', original_selector: '#buy', healed_selector: '#purchase', confidence: 1, method: 'manual', applied_by: 'user:u1' });
    expect((await store.healingPatterns.bestFix(ORG, PROJECT, '#buy'))?.id).toBe(manual.id);
    await store.healingPatterns.recordFailure(ORG, manual.id);
    expect(await store.healingPatterns.bestFix(ORG, PROJECT, '#buy')).toBeUndefined();
  });

  it('counts heal outcomes per organization', async () => {
    const { store } = setup();
    await store.healingPatterns.countOutcome(ORG, { success: true, method: 'dom_similarity', fromCache: false });
    await store.healingPatterns.countOutcome(ORG, { success: true, method: 'cache', fromCache: true });
    await store.healingPatterns.countOutcome(ORG, { success: false, method: 'dom_similarity', fromCache: false });
    expect(await store.healingPatterns.stats(ORG)).toEqual({ heals_applied: 2, heals_failed: 1, cache_hits: 1, by_method: { dom_similarity: 1, cache: 1 } });
    expect(await store.healingPatterns.stats(OTHER)).toEqual({ heals_applied: 0, heals_failed: 0, cache_hits: 0, by_method: {} });
  });
});

describe('healing cache', () => {
  const key = { project_id: PROJECT, original_selector: '#email', url_pattern: '/login', failure_class: 'not_found' };
  const entry = { ...key, healed_selector: 'test_id=login-email', healed_locator: { test_id: 'login-email' }, confidence: 0.93, method: 'dom_similarity', pattern_id: null };

  it('hits on the same project, selector, page pattern and failure class for 7 days, then misses', async () => {
    const { store, table, advance } = setup();
    const put = await store.healingCache.put(ORG, entry);
    expect(put.expires_at).toBe('2026-01-08T00:00:00.000Z');
    expect(await store.healingCache.get(ORG, key)).toMatchObject({ healed_selector: 'test_id=login-email', hit_count: 0 });
    // The item carries the table's TTL attribute, in epoch seconds.
    const raw = await table.query({ pk: `ORG#${ORG}#HEALCACHE` });
    expect(raw.items[0].expiresAt).toBe(Date.parse('2026-01-08T00:00:00Z') / 1000);

    for (const miss of [{ ...key, failure_class: 'not_unique' }, { ...key, url_pattern: '/signup' }, { ...key, original_selector: '#mail' }, { ...key, project_id: '0190c0de-0000-7000-8000-0000000000a2' }]) {
      expect(await store.healingCache.get(ORG, miss)).toBeUndefined();
    }
    expect(await store.healingCache.get(OTHER, key)).toBeUndefined();

    await store.healingCache.recordHit(ORG, key);
    expect((await store.healingCache.get(ORG, key))?.hit_count).toBe(1);
    advance(7 * DAY - 1000);
    expect(await store.healingCache.get(ORG, key)).toBeDefined();
    advance(1000);
    expect(await store.healingCache.get(ORG, key)).toBeUndefined();
  });

  it("lists a project's live fixes only: not another project's, another organization's or expired ones", async () => {
    const { store, advance } = setup();
    await store.healingCache.put(ORG, entry);
    await store.healingCache.put(ORG, { ...entry, project_id: '0190c0de-0000-7000-8000-0000000000a2', original_selector: '#theirs' });
    await store.healingCache.put(OTHER, { ...entry, original_selector: '#other-org' });
    advance(DAY);
    await store.healingCache.put(ORG, { ...entry, url_pattern: '/signup' });
    expect((await store.healingCache.listForProject(ORG, PROJECT)).map((e) => [e.original_selector, e.url_pattern]).sort()).toEqual([['#email', '/login'], ['#email', '/signup']]);
    advance(6 * DAY);
    expect((await store.healingCache.listForProject(ORG, PROJECT)).map((e) => e.url_pattern)).toEqual(['/signup']);
  });

  it('invalidates every page entry of a selector that healed to a reverted selector', async () => {
    const { store } = setup();
    await store.healingCache.put(ORG, entry);
    await store.healingCache.put(ORG, { ...entry, url_pattern: '/signup' });
    await store.healingCache.put(ORG, { ...entry, url_pattern: '/other', healed_selector: '#user-email', healed_locator: '#user-email' });
    expect(await store.healingCache.invalidate(ORG, PROJECT, '#email', 'test_id=login-email')).toBe(2);
    expect(await store.healingCache.get(ORG, key)).toBeUndefined();
    expect(await store.healingCache.get(ORG, { ...key, url_pattern: '/other' })).toBeDefined();
  });
});

describe('memory', () => {
  it('upserts by key per organization and finds similar failures closest first', async () => {
    const { store } = setup();
    const a = await store.memory.put(ORG, { namespace: 'failures', key: 'f1', value: { what: 'email' }, embedding: embedLocally('fill #email matched 0 elements on /login') });
    const again = await store.memory.put(ORG, { namespace: 'failures', key: 'f1', value: { what: 'email v2' }, embedding: embedLocally('fill #email matched 0 elements on /login') });
    expect(again.id).toBe(a.id);
    expect(again.value).toEqual({ what: 'email v2' });
    await store.memory.put(ORG, { namespace: 'failures', key: 'f2', value: { what: 'email input' }, embedding: embedLocally('fill #email-input matched 0 elements on /login') });
    await store.memory.put(ORG, { namespace: 'failures', key: 'f3', value: { what: 'cart' }, embedding: embedLocally('text #cart-total matched 2 elements on /cart/:id') });
    await store.memory.put(ORG, { namespace: 'fixes', key: 'x1', value: { what: 'a fix' }, embedding: embedLocally('fill #email matched 0 elements on /login') });
    await store.memory.put(ORG, { namespace: 'context', key: 'c1', value: { note: 'no embedding' } });
    await store.memory.put(OTHER, { namespace: 'failures', key: 'f1', value: { what: 'other tenant' }, embedding: embedLocally('fill #email matched 0 elements on /login') });

    const matches = await store.memory.searchSimilarFailures(ORG, { query_embedding: embedLocally('fill #email matched 0 elements on /login'), match_count: 5, similarity_threshold: 0.7 });
    expect(matches.map((m) => m.key)).toEqual(['f1', 'f2']);
    expect(matches[0]).toMatchObject({ id: a.id, namespace: 'failures', value: { what: 'email v2' } });
    expect(matches[0].similarity).toBeGreaterThan(0.999);
    expect(matches[1].similarity).toBeLessThan(matches[0].similarity);
    expect(matches[1].similarity).toBeGreaterThan(0.7);
    expect(await store.memory.searchSimilarFailures(ORG, { query_embedding: embedLocally('fill #email matched 0 elements on /login'), match_count: 1, similarity_threshold: 0.7 })).toHaveLength(1);
    expect((await store.memory.list(ORG)).length).toBe(5);
    await store.memory.delete(ORG, 'f2');
    expect(await store.memory.get(ORG, 'f2')).toBeUndefined();
  });
});

describe('memory in the healing knowledge', () => {
  // Found by QA: the top 5 similar failures of the whole organization were taken before keeping
  // those of this project and selector, so five other projects that had healed the same selector
  // on the same page (similarity ≈ 1) hid this project's own fix from another page (≈ 0.9).
  it("offers this project's fix of the selector even when other projects' failures are closer", async () => {
    const { store } = setup();
    const embedder = localEmbedder();
    const failure = (path: string) => ({ original: '#email', url: `http://app.test${path}`, urlPattern: path, failureClass: 'not_found' as const, failureText: 'locator #email matched 0 elements' });
    const heal = (healed: string) => ({ original: '#email', healed: `test_id=${healed}`, healedLocator: { test_id: healed }, confidence: 0.95, strategy: 'testId', method: 'dom_similarity' as const, fromCache: false });
    const mine = storeHealingKnowledge({ store, organizationId: ORG, projectId: PROJECT, embedder });
    await mine.recordSuccess(failure('/login'), heal('login-email'));
    for (let i = 0; i < 6; i++) {
      const other = storeHealingKnowledge({ store, organizationId: ORG, projectId: `0190c0de-0000-7000-8000-0000000001${String(i).padStart(2, '0')}`, embedder });
      await other.recordSuccess(failure('/signup'), heal(`signup-email-${i}`));
    }
    const { fixes } = await mine.lookup(failure('/signup'));
    expect(fixes).toEqual([expect.objectContaining({ source: 'memory', healed: 'test_id=login-email' })]);
  });
});
