import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import type { EventEnvelope } from '@svc/core/contracts/events';
import { startTestServer, client, signUp, type TestServer, type Client } from '../support/server.ts';

/**
 * The healing endpoints over the real local runtime: suggestions are ranked but never
 * applied; a person's fix becomes a pattern that can be listed (both paths) and
 * reverted; config, stats and review answer from the organization's own data; /api/heal
 * publishes healing.requested and says what the healer would do.
 */
let server: TestServer;
let admin: Client;
let viewer: Client;
let orgId: string;
let projectId: string;
let testId: string;
const events: EventEnvelope[] = [];

// v1's email field as recorded, and v2's login page (the field renamed, its test id kept).
const stored = { tag: 'input', id: 'email', name: 'email', type: 'email', classes: ['input', 'input-email'], placeholder: 'you@example.com', testId: 'login-email', role: 'textbox', accessibleName: 'Email', neighborText: ['Email', 'Password', 'Sign in'], xpath: '/html/body/main[1]/form[1]/input[1]', idXpath: '//*[@id="email"]', box: { x: 16, y: 160, width: 320, height: 31 }, visible: true };
const page = [
  { tag: 'input', id: 'user-email', name: 'email', type: 'email', classes: ['field', 'field--email'], placeholder: 'you@example.com', testId: 'login-email', role: 'textbox', accessibleName: 'Email address', neighborText: ['Email address', 'Password', 'Log in'], xpath: '/html/body/main[1]/form[1]/input[1]', idXpath: '//*[@id="user-email"]', box: { x: 16, y: 168, width: 320, height: 31 }, visible: true },
  { tag: 'input', id: 'user-password', name: 'password', type: 'password', classes: ['field', 'field--password'], role: 'textbox', accessibleName: 'Password', neighborText: ['Password', 'Email address', 'Log in'], xpath: '/html/body/main[1]/form[1]/input[2]', idXpath: '//*[@id="user-password"]', box: { x: 16, y: 230, width: 320, height: 31 }, visible: true },
  { tag: 'button', id: 'signin-button', type: 'submit', classes: ['button', 'button--primary'], text: 'Log in', testId: 'login-submit', role: 'button', accessibleName: 'Log in', xpath: '/html/body/main[1]/form[1]/button[1]', idXpath: '//*[@id="signin-button"]', box: { x: 16, y: 290, width: 80, height: 36 }, isButton: true, visible: true },
];

beforeAll(async () => {
  server = await startTestServer();
  server.runtime.bus.subscribe((e) => void events.push(e));
  const owner = await signUp(server.url, 'healer@example.com', 'Heal Org');
  orgId = owner.orgId;
  admin = client(server.url, { token: owner.token, org: orgId });
  const invite = await admin.post('/api/teams/invitations', { email: 'viewer@example.com', role: 'viewer' });
  const v = await signUp(server.url, 'viewer@example.com');
  await client(server.url, { token: v.token }).post('/api/teams/invitations/accept', { token: invite.body.token });
  viewer = client(server.url, { token: v.token, org: orgId });
  projectId = (await admin.post('/api/v1/projects', { name: 'Shop', app_url: 'http://127.0.0.1:1', config: { healing: { threshold: 0.85 } } })).body.id;
  testId = (await admin.post('/api/tests', { project_id: projectId, name: 'login', type: 'ui', steps: [{ type: 'goto', url: '/login' }, { type: 'fill', selector: '#email', value: 'demo@example.com' }] })).body.id;
}, 60_000);
afterAll(async () => server?.stop());

describe('POST /api/healing/suggest-fixes', () => {
  it('ranks the page and proposes a replacement selector, without applying anything', async () => {
    const res = await viewer.post('/api/healing/suggest-fixes', { project_id: projectId, original_selector: '#email', fingerprint: stored, candidates: page, url: 'http://127.0.0.1:1/login' });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ project_id: projectId, original_selector: '#email', threshold: 0.85 });
    const [best] = res.body.suggestions;
    expect(best).toMatchObject({ rank: 1, index: 0, healed_selector: 'test_id=login-email', locator: { test_id: 'login-email' }, strategy: 'testId', unique: true, method: 'dom_similarity' });
    expect(best.auto_apply).toBe(best.confidence >= 0.85);
    for (const s of res.body.suggestions) expect(s.confidence).toBeLessThanOrEqual(best.confidence);
    expect((await admin.get('/api/healing/patterns')).body.items).toEqual([]);
  });

  it('answers bad input with errors naming the field, and an unusable target with an empty ranking', async () => {
    const missing = await viewer.post('/api/healing/suggest-fixes', { project_id: projectId, original_selector: '#email', fingerprint: stored });
    expect(missing.status).toBe(400);
    expect(missing.body.error.details.issues).toEqual([{ path: 'candidates', message: 'required' }]);
    const notObject = await viewer.post('/api/healing/suggest-fixes', { project_id: projectId, original_selector: '#email', fingerprint: 'button', candidates: [] });
    expect(notObject.status).toBe(400);
    expect(notObject.body.error.details.issues[0].path).toBe('fingerprint');
    const empty = await viewer.post('/api/healing/suggest-fixes', { project_id: projectId, original_selector: '#email', fingerprint: {}, candidates: page });
    expect(empty.status).toBe(200);
    expect(empty.body.suggestions).toEqual([]);
    expect(empty.body.notes.join(' ')).toContain('target fingerprint is empty');
    const noPage = await viewer.post('/api/healing/suggest-fixes', { project_id: projectId, original_selector: '#email', fingerprint: stored, candidates: [] });
    expect(noPage.body.suggestions).toEqual([]);
    // A huge page (10k elements) with broken text still ranks; lone surrogates are made well-formed.
    const huge = Array.from({ length: 10_000 }, (_, i) => ({ tag: 'div', id: `row-${i}`, text: `Row ${i} \ud800`, classes: ['row'] }));
    const big = await viewer.post('/api/healing/suggest-fixes', { project_id: projectId, original_selector: '#email', fingerprint: stored, candidates: [...huge, ...page] });
    expect(big.status).toBe(200);
    expect(big.body.suggestions[0]).toMatchObject({ index: 10_000, healed_selector: 'test_id=login-email' });
    const unknownProject = await viewer.post('/api/healing/suggest-fixes', { project_id: '0190c0de-0000-7000-8000-0000000000ff', original_selector: '#email', fingerprint: stored, candidates: page });
    expect(unknownProject.status).toBe(404);
  });
});

describe('patterns: apply-fix, list, revert', () => {
  let patternId: string;

  it('records a person\'s fix (member role and up) and lists it on both paths', async () => {
    expect((await viewer.post('/api/healing/apply-fix', { project_id: projectId, original_selector: '#buy', healed_selector: '#purchase' })).status).toBe(403);
    const res = await admin.post('/api/healing/apply-fix', { project_id: projectId, original_selector: '#buy', healed_selector: 'role=button[name="Purchase"]', healed_locator: { role: 'button', name: 'Purchase', exact: true }, git_commit: 'abc1234', git_context: { author: 'dev' } });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ project_id: projectId, original_selector: '#buy', healed_selector: 'role=button[name="Purchase"]', confidence: 1, method: 'manual', pattern_type: 'selector_renamed', git_commit: 'abc1234', success_count: 0, failure_count: 0, reverted_at: null });
    expect(res.body.applied_by).toMatch(/^user:/);
    expect(res.body.healed_locator).toBeUndefined();
    patternId = res.body.id;

    const v1 = await viewer.get(`/api/v1/healing/patterns?project_id=${projectId}`);
    const plain = await viewer.get('/api/healing/patterns');
    expect(v1.status).toBe(200);
    expect(v1.body).toEqual(plain.body);
    expect(v1.body).toMatchObject({ items: [{ id: patternId }], next_cursor: null });
    expect((await viewer.get('/api/healing/patterns?pattern_type=text_changed')).body.items).toEqual([]);
    expect((await viewer.get('/api/healing/patterns?min_confidence=2')).status).toBe(400);
    const bad = await admin.post('/api/healing/apply-fix', { project_id: projectId, original_selector: '', healed_selector: '#x', confidence: 3, extra: 1 });
    expect(bad.body.error.details.issues.map((i: { path: string }) => i.path).sort()).toEqual(['confidence', 'extra', 'original_selector']);
    // A fix that changes nothing, or names a role no element has, is refused naming healed_selector; nothing is recorded.
    const before = (await admin.get('/api/healing/patterns')).body.items.length;
    const same = await admin.post('/api/healing/apply-fix', { project_id: projectId, original_selector: '#buy', healed_selector: '#buy' });
    expect([same.status, same.body.error.details.issues]).toEqual([400, [{ path: 'healed_selector', message: 'the same as original_selector: there is nothing to fix' }]]);
    const typo = await admin.post('/api/healing/apply-fix', { project_id: projectId, original_selector: '#buy', healed_selector: 'role=buton[name="Buy"]' });
    expect(typo.status).toBe(400);
    expect(typo.body.error.details.issues[0]).toMatchObject({ path: 'healed_selector', message: expect.stringContaining('buton') });
    // healed_selector is the description of healed_locator: the pattern listed one selector while the healer
    // applied another, and a revert (which matches the description) left the applied locator free to heal again.
    const other = await admin.post('/api/healing/apply-fix', { project_id: projectId, original_selector: '#buy', healed_selector: '#purchase', healed_locator: { test_id: 'checkout' } });
    expect([other.status, other.body.error?.details.issues]).toEqual([400, [{ path: 'healed_selector', message: 'does not describe healed_locator, which is test_id=checkout: give that (or leave healed_locator out)' }]]);
    const sameLocator = await admin.post('/api/healing/apply-fix', { project_id: projectId, original_selector: 'test_id=buy', healed_selector: 'test_id=buy', healed_locator: { test_id: 'buy' } });
    expect([sameLocator.status, sameLocator.body.error?.details.issues]).toEqual([400, [{ path: 'healed_selector', message: 'the same as original_selector: there is nothing to fix' }]]);
    expect((await admin.get('/api/healing/patterns')).body.items).toHaveLength(before);
  });

  it('reverts a pattern: kept with who and when, no longer active', async () => {
    expect((await viewer.post(`/api/healing/patterns/${patternId}/revert`)).status).toBe(403);
    const res = await admin.post(`/api/healing/patterns/${patternId}/revert`);
    expect(res.status).toBe(200);
    expect(res.body.reverted_by).toMatch(/^user:/);
    expect(res.body.reverted_at).not.toBeNull();
    expect((await viewer.get('/api/healing/patterns?reverted=true')).body.items.map((p: { id: string }) => p.id)).toEqual([patternId]);
    expect((await viewer.get('/api/healing/patterns?reverted=false')).body.items).toEqual([]);
    expect((await admin.post('/api/healing/patterns/0190c0de-0000-7000-8000-0000000000ff/revert')).status).toBe(404);
  });

  it('reviews patterns and suggestions, saying why', async () => {
    const res = await viewer.post('/api/healing/review', {
      project_id: projectId,
      pattern_ids: [patternId],
      suggestions: [
        { original_selector: '#email', healed_selector: 'test_id=login-email', confidence: 0.93, visible: true, unique: true },
        { original_selector: '#total', healed_selector: '#sum', confidence: 0.95, kind: 'assertion' },
        { original_selector: '#a', healed_selector: '#b', confidence: 0.82 },
      ],
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.threshold).toBe(0.85);
    expect(res.body.items.map((i: { safe_to_auto_apply: boolean }) => i.safe_to_auto_apply)).toEqual([false, true, false, false]);
    expect(res.body.items[0].reasons.join(' ')).toMatch(/reverted by user:/);
    expect(res.body.items[2].reasons.join(' ')).toMatch(/always needs approval/);
    expect(res.body.items[3].reasons.join(' ')).toMatch(/0\.82 < 0\.85/);
    const none = await viewer.post('/api/healing/review', {});
    expect(none.status).toBe(400);
    expect(none.body.error.details.issues[0].path).toBe('pattern_ids');
  });
});

describe('config and stats', () => {
  it('reports the limits, the cache TTL, the modes and the project\'s overrides', async () => {
    const base = await viewer.get('/api/healing/config');
    expect(base.body).toMatchObject({ enabled: true, threshold: 0.8, max_retries: 3, cache_ttl_seconds: 604800, project_overrides: {}, modes: { dom_similarity: { available: true }, memory: { available: true, embedder: 'svc-local-hash-v1' } } });
    const project = await viewer.get(`/api/healing/config?project_id=${projectId}`);
    expect(project.body).toMatchObject({ project_id: projectId, threshold: 0.85, project_overrides: { threshold: 0.85 } });
  });

  it('counts heals, cache hits and patterns of this organization', async () => {
    // Heal outcomes are recorded by runs; count three here as a run would.
    const store = server.runtime.deps.store;
    await store.healingPatterns.countOutcome(orgId, { success: true, method: 'dom_similarity', fromCache: false });
    await store.healingPatterns.countOutcome(orgId, { success: true, method: 'cache', fromCache: true });
    await store.healingPatterns.countOutcome(orgId, { success: false, method: 'dom_similarity', fromCache: false });
    const res = await viewer.get('/api/healing/stats');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ heals_applied: 2, heals_failed: 1, cache_hits: 1, cache_hit_rate: 0.5, by_method: { dom_similarity: 1, cache: 1 }, patterns: { total: 1, active: 0, reverted: 1 }, top_patterns: [] });
    expect(res.body.success_rate).toBeCloseTo(2 / 3, 6);
  });
});

describe('POST /api/heal', () => {
  it('publishes healing.requested and returns the decision for the given page', async () => {
    expect((await viewer.post('/api/heal', { test_id: testId, step_index: 1 })).status).toBe(403);
    const input = { step_index: 1, fingerprint: stored, candidates: page, url: 'http://127.0.0.1:1/login', error_message: 'fill: #email matched 0 elements' };
    // This project asks for 0.85; the best candidate's confidence may fall short of it.
    const strict = await admin.post('/api/heal', { test_id: testId, ...input });
    expect(strict.status, strict.text).toBe(202);
    const best = (await viewer.post('/api/healing/suggest-fixes', { project_id: projectId, original_selector: '#email', fingerprint: stored, candidates: page })).body.suggestions[0];
    expect(strict.body.decision).toBe(best.confidence >= 0.85 ? 'heal' : 'no_heal');

    // A project with the default threshold (0.8).
    const plainProject = (await admin.post('/api/v1/projects', { name: 'Plain' })).body.id;
    const plainTest = (await admin.post('/api/tests', { project_id: plainProject, name: 'login', type: 'ui', steps: [{ type: 'goto', url: '/login' }, { type: 'fill', selector: '#email', value: 'x' }] })).body.id;
    const res = await admin.post('/api/heal', { test_id: plainTest, ...input });
    expect(res.status, res.text).toBe(202);
    expect(res.body).toMatchObject({ decision: 'heal', proposals: [{ healed_selector: 'test_id=login-email', method: 'dom_similarity', from_cache: false, index: 0 }] });
    expect(res.body.proposals[0].confidence).toBeGreaterThanOrEqual(0.8);
    const requested = events.find((e) => e.event_id === res.body.event_id);
    expect(requested).toMatchObject({ event_type: 'healing.requested', tenant_id: orgId, payload: { test_id: plainTest, project_id: plainProject, step_index: 1, original_selector: '#email', error_message: 'fill: #email matched 0 elements' } });
    // Deciding is not applying: nothing was stored.
    expect((await admin.get('/api/healing/patterns?reverted=false')).body.items).toEqual([]);
  });

  it('without a page it only queues; an unhealable target is refused with reasons', async () => {
    const queued = await admin.post('/api/heal', { test_id: testId, step_index: 1 });
    expect(queued.status).toBe(202);
    expect(queued.body).toMatchObject({ decision: 'queued', proposals: [] });
    const far = await admin.post('/api/heal', { test_id: testId, original_selector: '#newsletter', fingerprint: { tag: 'input', id: 'newsletter', type: 'checkbox', text: 'Subscribe to the newsletter' }, candidates: page });
    expect(far.body.decision).toBe('no_heal');
    expect(far.body.reason).toMatch(/no confident replacement|no fingerprint/);
    const noSelector = await admin.post('/api/heal', { test_id: testId, step_index: 0 });
    expect(noSelector.status).toBe(400);
    expect(noSelector.body.error.details.issues[0].path).toBe('original_selector');
    expect((await admin.post('/api/heal', { test_id: testId, step_index: 9 })).body.error.details.issues[0].path).toBe('step_index');
    expect((await admin.post('/api/heal', { test_id: '0190c0de-0000-7000-8000-0000000000ff' })).status).toBe(404);
  });

  it('counts suggestions in healing_suggestions_total', async () => {
    const res = await fetch(`${server.url}/metrics`);
    expect(await res.text()).toMatch(/healing_suggestions_total\{method="dom_similarity",applied="false"\} \d+/);
  });
});
