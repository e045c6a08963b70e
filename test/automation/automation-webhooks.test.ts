/**
 * Workflow-automation events end to end on the local runtime: an admin creates an
 * automation integration (its secret shown once), and events signed as docs/automation.md
 * says (HMAC-SHA256 of "<timestamp>.<raw body>", computed here with node:crypto, not with
 * svc's code) start real runs through the run graph against the fixture app; the run's
 * outcome is POSTed, signed the same way, to a callback receiver on 127.0.0.1, with what
 * changed against the project's previous run (from its second run on). Also:
 * redeliveries, refused signatures and timestamps, an unknown integration, a paused one,
 * project scoping, failure.reported generating a test in real Chromium, the audit log and
 * who may manage integrations.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys } from '@svc/core/store/keys';
import { client, runEnded, signUp, type Client } from '../support/server.ts';
import { startRunGraphServer } from '../run-graph/support/api-server.ts';
import { startFixtureApp, type FixtureApp } from '../fixtures/app/server.ts';
import { startPostReceiver, type PostReceiver } from '../support/post-receiver.ts';
import { sendEvent, sign, unixNow } from './support/events.ts';

const PUBLIC_URL = 'https://svc.example.com';

let server: Awaited<ReturnType<typeof startRunGraphServer>>;
let app: FixtureApp;
let receiver: PostReceiver;
let api: Client;
let orgId: string;
let shop: string;
let admin: string;
let strangerProject: string;
let integration: { id: string; secret: string };

const now = unixNow;
/** POSTs an event signed with the integration's secret (or as `as` says). */
const send = (event: Record<string, unknown>, as: Parameters<typeof sendEvent>[3] = {}) => sendEvent(server.url, integration, event, as);

const runsOf = async (projectId: string) => (await server.runtime.deps.store.testRuns.listForProject(projectId, 200)).items.length;
const apiTest = (name: string, url: string, tags: string[]) => ({ name, type: 'api', tags, priority: 'medium', steps: [{ type: 'request', method: 'GET', url }], assertions: [{ type: 'status', equals: 200 }] });

const finished = (runId: string) => runEnded(api, runId);

beforeAll(async () => {
  app = await startFixtureApp();
  receiver = await startPostReceiver('/hooks/');
  server = await startRunGraphServer({ env: { SVC_PUBLIC_URL: PUBLIC_URL } });
  const owner = await signUp(server.url, 'automation-admin@example.com');
  orgId = owner.orgId;
  api = client(server.url, { token: owner.token, org: owner.orgId });
  shop = (await api.post('/api/v1/projects', { name: 'Shop', app_url: app.url })).body.id;
  admin = (await api.post('/api/v1/projects', { name: 'Admin panel', app_url: app.url })).body.id;
  for (const [project, t] of [
    [shop, apiTest('lists the items', '/api/items', ['smoke'])],
    [shop, apiTest('opens item 999', '/api/items/999', ['checkout'])],
    [shop, apiTest('opens the html api', '/api/html', ['slow'])],
    [admin, apiTest('admin lists the items', '/api/items', [])],
  ] as const) {
    const created = await api.post('/api/tests', { ...t, project_id: project });
    expect(created.status, created.text).toBe(201);
  }
  const other = await signUp(server.url, 'automation-stranger@example.com');
  strangerProject = (await client(server.url, { token: other.token, org: other.orgId }).post('/api/v1/projects', { name: 'Theirs', app_url: app.url })).body.id;
});
afterAll(async () => {
  await server?.stop();
  await app?.close();
  await receiver?.stop();
});

describe('setting up', () => {
  it('creates an integration scoped to one project: the secret is shown once, sealed at rest, never listed', async () => {
    const res = await api.post('/api/integrations/automation', { name: 'n8n nightly', project_ids: [shop] });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ name: 'n8n nightly', project_ids: [shop], enabled: true, webhook_path: '/webhooks/automation', secret: expect.stringMatching(/^whsec_[A-Za-z0-9_-]{43}$/) });
    expect(res.body.secret_hint).toBe(`…${res.body.secret.slice(-4)}`);
    integration = { id: res.body.id, secret: res.body.secret };

    const one = await api.get(`/api/integrations/automation/${integration.id}`);
    const list = await api.get('/api/integrations/automation');
    expect(one.status).toBe(200);
    expect(list.body.items.map((i: { id: string }) => i.id)).toEqual([integration.id]);
    for (const text of [one.text, list.text]) {
      expect(text).not.toContain(integration.secret);
      expect(text).not.toContain('"secret"');
    }
    const stored = await server.runtime.deps.store.table.get(keys.automationIntegration(orgId, integration.id));
    expect(JSON.stringify(stored)).not.toContain(integration.secret);
  });

  it('bad input names the field; a project of another organization is 404', async () => {
    for (const [body, field] of [
      [{}, 'name'],
      [{ name: 'x', project_ids: ['shop'] }, 'project_ids.0'],
      [{ name: 'x', project_ids: [shop, shop] }, 'project_ids'],
      [{ name: 'x', secret: 'mine' }, 'secret'],
    ] as const) {
      const res = await api.post('/api/integrations/automation', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.details.issues.map((i: { path: string }) => i.path), JSON.stringify(body)).toContain(field);
    }
    expect((await api.post('/api/integrations/automation', { name: 'x', project_ids: [strangerProject] })).status).toBe(404);
    expect((await api.patch(`/api/integrations/automation/${integration.id}`, {})).status).toBe(400);
  });
});

describe('run.requested', () => {
  it('starts a run (trigger automation) of the tagged tests, answers 202 with links, and POSTs the signed outcome to callback_url', async () => {
    const res = await send({ event: 'run.requested', project: 'shop', tags: ['smoke', 'checkout'], callback_url: `${receiver.url}/hooks/1` }, { delivery: 'n8n-exec-1' });
    expect(res.status, res.text).toBe(202);
    const runId = res.body.run_id;
    expect(res.body).toEqual({ event: 'run.requested', delivery_id: 'n8n-exec-1', run_id: expect.stringMatching(/^[0-9a-f-]{36}$/), project_id: shop, tests: 2, links: { status: `${PUBLIC_URL}/api/v1/test/status/${runId}`, report: `${PUBLIC_URL}/api/reports/${runId}?format=html` } });

    const posted = await receiver.delivered('/hooks/1');
    // The receiver verifies it the way docs/automation.md says: the same secret, over the timestamp and the raw body.
    const stamp = Number(posted.headers['x-svc-timestamp']);
    expect(Math.abs(stamp - now())).toBeLessThan(120);
    expect(posted.headers['x-svc-integration']).toBe(integration.id);
    expect(posted.headers['x-svc-signature']).toBe(sign(integration.secret, stamp, posted.raw));
    expect(posted.headers['x-svc-delivery']).toBe(`run-finished-${runId}`);
    expect(posted.body).toMatchObject({
      event: 'run.finished', delivery_id: 'n8n-exec-1', run_id: runId, project_id: shop, project: 'Shop', status: 'completed',
      totals: { total: 2, passed: 1, failed: 1 }, error: null, links: { report: `${PUBLIC_URL}/api/reports/${runId}?format=html` },
    });
    expect(posted.body.failed_tests).toEqual([{ test_id: expect.any(String), name: 'opens item 999', error: expect.stringMatching(/expected status 200, got 404/) }]);
    expect(posted.body).not.toHaveProperty('compare'); // the project's first run: nothing to compare with

    const run = await finished(runId);
    expect(run).toMatchObject({ trigger: 'automation', project_id: shop, thread_id: `automation-${integration.id}-n8n-exec-1` });
    expect(await server.runtime.deps.store.automationCallbacks.get(orgId, run.thread_id)).toMatchObject({ status: 'delivered', attempts: 1, http_status: 200 });
  });

  it('a redelivery (same X-Svc-Delivery, or the same id in the body) answers the first answer and starts no second run', async () => {
    const before = await runsOf(shop);
    const again = await send({ event: 'run.requested', project: 'shop', tags: ['smoke', 'checkout'], callback_url: `${receiver.url}/hooks/1` }, { delivery: 'n8n-exec-1' });
    expect(again.status).toBe(202);
    expect(again.body).toMatchObject({ delivery_id: 'n8n-exec-1', duplicate: true, tests: 2 });
    const first = (await server.runtime.deps.store.testRuns.listForProject(shop, 1)).items[0];
    expect(again.body.run_id).toBe(first.id);

    const oneTest = (await api.get(`/api/tests?project_id=${shop}`)).body.items[0].id;
    const byBody = await send({ event: 'run.requested', id: 'zap-42', project_id: shop, test_ids: [oneTest], base_url: app.url, retries: 1 });
    expect(byBody.status, byBody.text).toBe(202);
    const twice = await send({ event: 'run.requested', id: 'zap-42', project_id: shop, test_ids: ['00000000-0000-7000-8000-000000000000'] });
    expect(twice.status).toBe(202);
    expect(twice.body).toMatchObject({ run_id: byBody.body.run_id, duplicate: true });
    expect(await runsOf(shop)).toBe(before + 1);
    const run = await finished(byBody.body.run_id);
    expect(run).toMatchObject({ trigger: 'automation', total_tests: 1 });
    expect(receiver.received.filter((p) => p.path === '/hooks/1')).toHaveLength(1);
  });

  it('grep picks tests by name; a test_ids outside the project or a grep that matches nothing says why', async () => {
    const res = await send({ event: 'run.requested', project_id: shop, grep: '^lists' });
    expect(res.status, res.text).toBe(202);
    expect(res.body.tests).toBe(1);
    expect(await finished(res.body.run_id)).toMatchObject({ status: 'completed', passed_tests: 1, failed_tests: 0 });
    const none = await send({ event: 'run.requested', project_id: shop, grep: 'nothing-like-this' });
    expect(none.status).toBe(400);
    expect(none.body.error.message).toBe('no test of the project has a name matching /nothing-like-this/i');
    const adminTest = (await api.get(`/api/tests?project_id=${admin}`)).body.items[0].id;
    expect((await send({ event: 'run.requested', project_id: shop, test_ids: [adminTest] })).status).toBe(404);
  });
});

describe('refused', () => {
  it("the outcome says what the run broke against the project's previous run", async () => {
    const created = await api.post('/api/tests', { ...apiTest('pays the order', '/api/flaky/automation-compare', ['payment']), project_id: shop });
    expect(created.status, created.text).toBe(201);
    // The previous run, started through the API: call 1 of the flaky endpoint passes.
    const base = await api.post('/api/v1/test/run', { project_id: shop, test_ids: [created.body.id] });
    expect(base.status, base.text).toBe(201);
    expect(await finished(base.body.run.id)).toMatchObject({ status: 'completed', failed_tests: 0 });
    const res = await send({ event: 'run.requested', project_id: shop, tags: ['payment'], callback_url: `${receiver.url}/hooks/compare` });
    expect(res.status, res.text).toBe(202);
    const posted = await receiver.delivered('/hooks/compare');
    // Call 2 fails: the fields of before, and the comparison beside them.
    expect(posted.body).toMatchObject({ run_id: res.body.run_id, status: 'completed', totals: { total: 1, passed: 0, failed: 1, quarantined: 0 }, failed_tests: [{ test_id: created.body.id, name: 'pays the order' }] });
    expect(posted.body.compare).toEqual({ base_run_id: base.body.run.id, new_failures: 1, fixed: 0, still_failing: 0 });
  });

  it('a bad, missing or stale signature and an unknown integration are 401 with one answer, and nothing runs', async () => {
    const before = await runsOf(shop);
    const event = { event: 'run.requested', project_id: shop };
    const wrong = await send(event, { secret: 'whsec_not-the-secret' });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error.code).toBe('INVALID_SIGNATURE');
    for (const res of [
      await send(event, { secret: null }),
      await send(event, { timestamp: now() - 6 * 60 }),
      await send(event, { timestamp: now() + 6 * 60 }),
      await send(event, { id: '00000000-0000-7000-8000-000000000000' }),
      await send(event, { id: 'not-an-id' }),
      // A malformed delivery id is said (400) only to a caller whose signature verified.
      await send(event, { secret: 'whsec_not-the-secret', delivery: 'has spaces' }),
    ]) {
      expect(res.status).toBe(401);
      expect(res.body).toEqual(wrong.body);
    }
    // A signature over other bytes (the body changed in transit) verifies nothing either.
    const timestamp = now();
    const tampered = await fetch(`${server.url}/webhooks/automation`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-svc-integration': integration.id, 'x-svc-timestamp': String(timestamp), 'x-svc-signature': sign(integration.secret, timestamp, JSON.stringify(event)) }, body: JSON.stringify({ ...event, retries: 5 }) });
    expect(tampered.status).toBe(401);
    expect(await runsOf(shop)).toBe(before);
  });

  it('an unknown event is 400 naming event; a bad field is named; a bad grep is named', async () => {
    const unknown = await send({ event: 'deploy.requested', project_id: shop });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.details.issues.map((i: { path: string }) => i.path)).toEqual(['event']);
    for (const [event, field] of [
      [{ event: 'run.requested', project_id: shop, retries: 99 }, 'retries'],
      [{ event: 'run.requested', project_id: shop, callback_url: 'ftp://example.com/x' }, 'callback_url'],
      [{ event: 'run.requested' }, 'project_id'],
      [{ event: 'run.requested', project_id: shop, grep: '(' }, 'grep'],
      [{ event: 'failure.reported', project_id: shop, failure: { message: 'x' } }, 'failure.url'],
    ] as const) {
      const res = await send(event);
      expect(res.status, JSON.stringify(event)).toBe(400);
      expect(res.body.error.details.issues.map((i: { path: string }) => i.path), JSON.stringify(event)).toContain(field);
    }
    expect((await send({ event: 'run.requested', project_id: shop }, { delivery: 'has spaces' })).status).toBe(400);
  });

  it("a project outside the integration's projects, another organization's or none by that name is 404", async () => {
    const before = await runsOf(admin);
    for (const event of [
      { event: 'run.requested', project_id: admin },
      { event: 'run.requested', project: 'Admin panel' },
      { event: 'run.requested', project_id: strangerProject },
      { event: 'run.requested', project: 'Theirs' },
      { event: 'failure.reported', project_id: admin, failure: { message: 'x', url: `${app.url}/` } },
    ]) {
      const res = await send(event);
      expect(res.status, JSON.stringify(event)).toBe(404);
      expect(res.body.error).toEqual({ code: 'NOT_FOUND', message: 'project not found' });
    }
    expect(await runsOf(admin)).toBe(before);
  });

  it('a paused integration is refused (403) and runs nothing; enabled again it works', async () => {
    expect((await api.patch(`/api/integrations/automation/${integration.id}`, { enabled: false })).body.enabled).toBe(false);
    const before = await runsOf(shop);
    const res = await send({ event: 'run.requested', project_id: shop, grep: '^lists' });
    expect(res.status).toBe(403);
    expect(res.body.error.message).toMatch(/paused/);
    expect(await runsOf(shop)).toBe(before);
    expect((await api.patch(`/api/integrations/automation/${integration.id}`, { enabled: true })).body.enabled).toBe(true);
  });
});

describe('failure.reported', () => {
  it('generates a regression test from a production failure (executed once in Chromium); a redelivery answers the same test', async () => {
    const event = { event: 'failure.reported', id: 'sentry-evt-7', project: 'Shop', failure: { message: 'Error: item not found', url: `${app.url}/table`, breadcrumbs: [{ category: 'fetch', data: { method: 'GET', url: `${app.url}/api/items/999`, status_code: 404 } }] } };
    const res = await send(event);
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ event: 'failure.reported', delivery_id: 'sentry-evt-7', project_id: shop, reproduced: true, created_test: null, failing_request: { method: 'GET', url: `${app.url}/api/items/999`, status: 404 } });
    expect(res.body.execution.status).toBe('failed');
    const generated = await api.get(`/api/generated-tests/${res.body.generated_test.id}`);
    expect(generated.status).toBe(200);
    expect(generated.body.project_id).toBe(shop);

    const again = await send(event);
    expect(again.status).toBe(201);
    expect(again.body).toMatchObject({ duplicate: true, generated_test: { id: res.body.generated_test.id } });
    expect((await api.get(`/api/generated-tests?project_id=${shop}`)).body.items.filter((g: { source: string }) => g.source === 'event')).toHaveLength(1);
  });

  it('two copies of one failure.reported at once generate one test: the later copy is told to come back (409, Retry-After) or gets the same answer', async () => {
    const event = { event: 'failure.reported', id: 'sentry-evt-8', project: 'Shop', failure: { message: 'Error: item not found again', url: `${app.url}/table`, breadcrumbs: [{ category: 'fetch', data: { method: 'GET', url: `${app.url}/api/items/998`, status_code: 404 } }] } };
    const eventTests = async () => (await api.get(`/api/generated-tests?project_id=${shop}`)).body.items.filter((g: { source: string }) => g.source === 'event').length;
    const before = await eventTests();
    const answers = await Promise.all([send(event), send(event)]);
    const made = answers.filter((r) => r.status === 201 && !r.body.duplicate);
    expect(made, answers.map((r) => r.text).join('\n')).toHaveLength(1);
    for (const other of answers.filter((r) => r !== made[0])) {
      if (other.status === 409) {
        expect(other.body.error).toMatchObject({ code: 'CONFLICT', message: expect.stringContaining('sentry-evt-8') });
        expect(other.retryAfter).toBe('60');
      } else expect(other.body).toMatchObject({ duplicate: true, generated_test: { id: made[0].body.generated_test.id } });
    }
    expect(await eventTests()).toBe(before + 1);
    const later = await send(event);
    expect(later.status).toBe(201);
    expect(later.body).toMatchObject({ duplicate: true, generated_test: { id: made[0].body.generated_test.id } });
  });
});

describe('the record and who may', () => {
  it('runs and generated tests are in the audit log under the integration', async () => {
    const audit = (await api.get('/api/audit-logs?limit=200')).body.items as Array<{ action: string; user_id: string; resource: string; metadata: Record<string, unknown> }>;
    const started = audit.filter((a) => a.action === 'test_run.start' && a.metadata.trigger === 'automation');
    expect(started).toHaveLength(4);
    expect(started.find((a) => a.metadata.delivery_id === 'n8n-exec-1')).toMatchObject({ user_id: `automation:${integration.id}`, metadata: { integration_id: integration.id, project_id: shop, callback: true } });
    const generated = audit.filter((a) => a.action === 'test.generate' && a.user_id === `automation:${integration.id}`);
    // One entry per delivery: a redelivery or a concurrent copy generated nothing.
    expect(generated.map((a) => a.metadata.delivery_id).sort()).toEqual(['sentry-evt-7', 'sentry-evt-8']);
    expect(generated[0]).toMatchObject({ metadata: { source: 'event', integration_id: integration.id } });
    for (const action of ['automation_integration.create', 'automation_integration.update']) expect(audit.map((a) => a.action)).toContain(action);
    expect(JSON.stringify(audit)).not.toContain(integration.secret);
  });

  it('members and API keys get 403; another organization gets 404', async () => {
    const invite = await api.post('/api/teams/invitations', { email: 'automation-member@example.com', role: 'member' });
    const member = await signUp(server.url, 'automation-member@example.com');
    expect((await client(server.url, { token: member.token }).post('/api/teams/invitations/accept', { token: invite.body.token })).status).toBe(200);
    const asMember = client(server.url, { token: member.token, org: orgId });
    expect((await asMember.get('/api/integrations/automation')).status).toBe(403);
    const denied = await asMember.post('/api/integrations/automation', { name: 'mine' });
    expect(denied.status).toBe(403);
    expect(denied.text).not.toContain('whsec_');
    expect((await asMember.patch(`/api/integrations/automation/${integration.id}`, { enabled: false })).status).toBe(403);
    const key = await api.post('/api/api-keys', { name: 'ci', permissions: ['admin'] });
    expect((await client(server.url, { token: key.body.key }).post('/api/integrations/automation', { name: 'via key' })).status).toBe(403);

    const other = await signUp(server.url, 'automation-stranger-2@example.com');
    const stranger = client(server.url, { token: other.token, org: other.orgId });
    for (const res of [await stranger.get(`/api/integrations/automation/${integration.id}`), await stranger.patch(`/api/integrations/automation/${integration.id}`, { enabled: false }), await stranger.delete(`/api/integrations/automation/${integration.id}`)]) {
      expect(res.status).toBe(404);
      expect(res.body.error).toEqual({ code: 'NOT_FOUND', message: 'automation integration not found' });
    }
    expect((await stranger.get('/api/integrations/automation')).body.items).toEqual([]);
  });

  it('deleting the integration refuses its events from then on', async () => {
    expect((await api.delete(`/api/integrations/automation/${integration.id}`)).status).toBe(204);
    const res = await send({ event: 'run.requested', project_id: shop });
    expect(res.status).toBe(401);
    expect((await api.get('/api/audit-logs?limit=200')).body.items.map((a: { action: string }) => a.action)).toContain('automation_integration.delete');
  });
});

describe('rotating the secret', () => {
  it('during the grace period an event signed with the previous secret runs, and the callback is signed with both', async () => {
    const created = await api.post('/api/integrations/automation', { name: 'zap', project_ids: [shop] });
    expect(created.status, created.text).toBe(201);
    const rotated = await api.post(`/api/integrations/automation/${created.body.id}/rotate-secret`, { grace_hours: 1 });
    expect(rotated.status, rotated.text).toBe(200);
    const [previous, current] = [created.body.secret, rotated.body.secret];

    // The tool has not been updated yet: it still signs with the previous secret.
    const res = await sendEvent(server.url, { id: created.body.id, secret: previous }, { event: 'run.requested', project_id: shop, grep: '^lists', callback_url: `${receiver.url}/hooks/rotated` });
    expect(res.status, res.text).toBe(202);
    const posted = await receiver.delivered('/hooks/rotated');
    const stamp = Number(posted.headers['x-svc-timestamp']);
    // X-Svc-Signature is the new secret's; a receiver still holding the previous one checks X-Svc-Signature-Previous.
    expect(posted.headers['x-svc-signature']).toBe(sign(current, stamp, posted.raw));
    expect(posted.headers['x-svc-signature-previous']).toBe(sign(previous, stamp, posted.raw));
    expect(posted.body).toMatchObject({ event: 'run.finished', run_id: res.body.run_id, status: 'completed' });

    // Once the previous secret stops (a rotation with no grace), only the new one signs.
    const again = await api.post(`/api/integrations/automation/${created.body.id}/rotate-secret`, { grace_hours: 0 });
    expect((await sendEvent(server.url, { id: created.body.id, secret: current }, { event: 'run.requested', project_id: shop })).status).toBe(401);
    const next = await sendEvent(server.url, { id: created.body.id, secret: again.body.secret }, { event: 'run.requested', project_id: shop, grep: '^lists', callback_url: `${receiver.url}/hooks/rotated-2` });
    expect(next.status, next.text).toBe(202);
    const second = await receiver.delivered('/hooks/rotated-2');
    expect(second.headers['x-svc-signature']).toBe(sign(again.body.secret, Number(second.headers['x-svc-timestamp']), second.raw));
    expect(second.headers['x-svc-signature-previous']).toBeUndefined();
  });
});
