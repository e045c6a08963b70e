/**
 * Notification channels end to end: real runs on the local runtime against the fixture
 * app's flaky endpoint (passes, fails, passes) tell a Slack-style incoming webhook and a
 * signed JSON webhook, both real HTTP servers on loopback, how they ended: passed,
 * failed, recovered, each to the channels whose rule takes it. The signature checks out
 * with the secret shown at creation; a failing endpoint is tried three times and logged;
 * a report node that runs again does not notify twice; disabled and other-project
 * channels stay quiet; admins only, people only (not API keys); another organization 404.
 * From the second run on, each message says what changed against the previous run: the
 * failed run names its new failure, the recovery says it was fixed.
 */
import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { notificationService } from '@svc/core/services/notifications';
import { client, signUp, type Client } from '../support/server.ts';
import { startRunGraphServer } from '../run-graph/support/api-server.ts';
import { startFixtureApp, type FixtureApp } from '../fixtures/app/server.ts';

interface Received {
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
  json: Record<string, any>;
}

let server: Awaited<ReturnType<typeof startRunGraphServer>>;
let fixture: FixtureApp;
let receiver: Server;
let receiverUrl: string;
const received: Received[] = [];
let api: Client;
let orgId: string;
let projectId: string;
let otherProjectId: string;
let testId: string;
const channels: Record<string, { id: string; signing_secret: string | null }> = {};
const runs: string[] = [];

const at = (path: string) => received.filter((r) => r.path === path);

beforeAll(async () => {
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const path = req.url ?? '/';
      received.push({ path, headers: req.headers, body, json: body ? JSON.parse(body) : {} });
      if (path === '/broken') {
        res.writeHead(500, { 'content-type': 'text/plain' });
        return res.end('chat server is down');
      }
      res.writeHead(path === '/slack' ? 200 : 204);
      res.end(path === '/slack' ? 'ok' : undefined);
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', () => resolve()));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;

  fixture = await startFixtureApp();
  server = await startRunGraphServer();
  const owner = await signUp(server.url, 'notifier@example.com');
  orgId = owner.orgId;
  api = client(server.url, { token: owner.token, org: owner.orgId });
  projectId = (await api.post('/api/v1/projects', { name: 'shop', app_url: fixture.url })).body.id;
  otherProjectId = (await api.post('/api/v1/projects', { name: 'blog', app_url: fixture.url })).body.id;
  const created = await api.post('/api/tests', { project_id: projectId, name: 'flaky endpoint answers', type: 'api', steps: [{ type: 'request', url: '/api/flaky/notify' }], assertions: [{ type: 'status', equals: 200 }] });
  testId = created.body.id;
});
afterAll(async () => {
  await server?.stop();
  await fixture?.close();
  await new Promise<void>((resolve) => receiver?.close(() => resolve()));
});

async function runOnce(): Promise<string> {
  const started = await api.post('/api/v1/test/run', { project_id: projectId, test_ids: [testId] });
  expect(started.status, started.text).toBe(201);
  const runId = started.body.run.id as string;
  for (const deadline = Date.now() + 30_000; ; await new Promise((r) => setTimeout(r, 100))) {
    const status = await api.get(`/api/v1/test/status/${runId}`);
    if (['completed', 'failed', 'cancelled'].includes(status.body.run.status)) break;
    if (Date.now() > deadline) throw new Error(`run ${runId} still ${status.body.run.status}`);
  }
  runs.push(runId);
  return runId;
}

/** Deliveries go out after the run's final status; wait for the count a path should reach. */
async function deliveredTo(path: string, count: number) {
  await expect.poll(() => at(path).length, { timeout: 15_000 }).toBe(count);
  return at(path);
}

describe('channels', () => {
  it('adds channels; a webhook channel\'s signing secret is shown once, URLs never', async () => {
    const add = async (name: string, body: Record<string, unknown>) => {
      const res = await api.post('/api/notifications/channels', { name, ...body });
      expect(res.status, res.text).toBe(201);
      channels[name] = res.body;
      return res.body;
    };
    const slack = await add('qa-alerts', { kind: 'slack', url: `${receiverUrl}/slack`, project_id: projectId });
    expect(slack).toMatchObject({ kind: 'slack', events: ['run_failed', 'run_recovered'], enabled: true, url_hint: receiverUrl, signing_secret: null, project_id: projectId });
    expect(slack).not.toHaveProperty('url');
    const hook = await add('ci-hook', { kind: 'webhook', url: `${receiverUrl}/hook?token=abc`, events: ['run_passed', 'run_failed', 'run_recovered'] });
    expect(hook.signing_secret).toMatch(/^whsec_[\w-]{43}$/);
    await add('broken', { kind: 'webhook', url: `${receiverUrl}/broken`, events: ['run_failed'] });
    await add('paused', { kind: 'slack', url: `${receiverUrl}/paused`, enabled: false });
    await add('other project', { kind: 'slack', url: `${receiverUrl}/other`, project_id: otherProjectId });

    const listed = await api.get('/api/notifications/channels');
    expect(listed.body.items).toHaveLength(5);
    expect(JSON.stringify(listed.body)).not.toContain('/hook');
    expect(JSON.stringify(listed.body)).not.toContain('whsec_');
    const one = await api.get(`/api/notifications/channels/${hook.id}`);
    expect(one.body).not.toHaveProperty('signing_secret');
    expect(one.body).not.toHaveProperty('organization_id');
  });

  it('a passing first run: only the channel that takes run_passed hears of it, signed', async () => {
    const runId = await runOnce(); // call 1 of the flaky endpoint: passes
    const [passed] = await deliveredTo('/hook?token=abc', 1);
    expect(passed.json).toMatchObject({ event: 'run_passed', organization_id: orgId, project: { id: projectId, name: 'shop' }, run: { id: runId, status: 'completed', trigger: 'api', total: 1, passed: 1, failed: 0 }, failed_tests: [] });
    expect(passed.json).not.toHaveProperty('compare'); // the project's first run: nothing to compare with
    expect(passed.headers['x-svc-event']).toBe('run_passed');
    expect(passed.headers['x-svc-delivery']).toBe(passed.json.id);
    const [, t, v1] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(passed.headers['x-svc-signature']))!;
    expect(v1).toBe(createHmac('sha256', channels['ci-hook'].signing_secret!).update(`${t}.${passed.body}`).digest('hex'));
    expect(Math.abs(Number(t) - Date.now() / 1000)).toBeLessThan(60);
    expect(at('/slack')).toHaveLength(0);
  });

  it('a failed run: chat gets the failing test and its error, the webhook the JSON, the broken endpoint three tries', async () => {
    const runId = await runOnce(); // call 2: 503
    const [slack] = await deliveredTo('/slack', 1);
    expect(slack.json.text).toBe(`svc: shop failed — 1 of 1 tests failed (api run ${runId.slice(0, 8)})\nvs previous run: 1 new failure (flaky endpoint answers), 0 fixed`);
    expect(slack.json.blocks[1]).toEqual({ type: 'section', text: { type: 'mrkdwn', text: 'vs previous run: 1 new failure (flaky endpoint answers), 0 fixed' } });
    const blocks = JSON.stringify(slack.json.blocks);
    expect(blocks).toContain('*flaky endpoint answers*');
    expect(blocks).toContain('503');
    const hook = await deliveredTo('/hook?token=abc', 2);
    expect(hook[1].json).toMatchObject({ event: 'run_failed', run: { id: runId, failed: 1 }, failed_tests: [{ test_id: testId, name: 'flaky endpoint answers' }] });
    expect(hook[1].json.compare).toEqual({ base_run_id: runs[0], new_failures: 1, fixed: 0, still_failing: 0 });
    expect(hook[1].json.failed_tests[0].error).toMatch(/503/);
    await deliveredTo('/broken', 3);
    await expect
      .poll(async () => (await api.get(`/api/notifications/channels/${channels.broken.id}/logs`)).body.items[0]?.attempts, { timeout: 10_000 })
      .toBe(3);
    const [log] = (await api.get(`/api/notifications/channels/${channels.broken.id}/logs`)).body.items;
    expect(log).toMatchObject({ run_id: runId, event: 'run_failed', status: 'failed', attempts: 3, http_status: 500, error: 'the endpoint answered 500: chat server is down' });
  });

  it('the next passing run is a recovery: one message per channel, recovered over passed', async () => {
    const runId = await runOnce(); // call 3: passes
    const [, slack] = await deliveredTo('/slack', 2);
    expect(slack.json.text).toBe(`svc: shop passed again — 1 of 1 tests passed (api run ${runId.slice(0, 8)})\nvs previous run: 0 new failures, 1 fixed`);
    const hook = await deliveredTo('/hook?token=abc', 3);
    expect(hook[2].json).toMatchObject({ event: 'run_recovered', run: { id: runId }, compare: { base_run_id: runs[1], new_failures: 0, fixed: 1, still_failing: 0 } });
    expect(at('/broken')).toHaveLength(3); // takes run_failed only
    expect(at('/paused')).toHaveLength(0);
    expect(at('/other')).toHaveLength(0);
    const logs = (await api.get(`/api/notifications/channels/${channels['ci-hook'].id}/logs`)).body.items;
    expect(logs.map((l: { event: string; status: string; http_status: number }) => [l.event, l.status, l.http_status])).toEqual([
      ['run_recovered', 'delivered', 204],
      ['run_failed', 'delivered', 204],
      ['run_passed', 'delivered', 204],
    ]);
  });

  it('a report that runs again (a resumed run) does not notify twice', async () => {
    const before = received.length;
    await notificationService({ store: server.runtime.deps.store, clock: server.runtime.deps.clock }).runFinished(orgId, runs[1]);
    expect(received.length).toBe(before);
  });

  it('a test message, and what the endpoint said', async () => {
    const ok = await api.post(`/api/notifications/channels/${channels['qa-alerts'].id}/test`);
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body).toEqual({ status: 'delivered', attempts: 1, http_status: 200, error: null });
    expect(at('/slack').at(-1)!.json.text).toBe('svc: test message for shop — this channel works');
    const bad = await api.post(`/api/notifications/channels/${channels.broken.id}/test`);
    expect(bad.body).toMatchObject({ status: 'failed', attempts: 3, http_status: 500 });
  });

  it('changes and removes channels; a new URL moves the hint', async () => {
    const changed = await api.patch(`/api/notifications/channels/${channels.paused.id}`, { enabled: true, url: 'https://hooks.example.com/services/T0/B0/x', events: ['run_failed'] });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body).toMatchObject({ enabled: true, url_hint: 'https://hooks.example.com', events: ['run_failed'] });
    expect((await api.delete(`/api/notifications/channels/${channels.paused.id}`)).status).toBe(204);
    expect((await api.get(`/api/notifications/channels/${channels.paused.id}`)).status).toBe(404);
  });
});

describe('who may', () => {
  it('bad input names the field', async () => {
    for (const [body, field] of [
      [{ name: 'x', kind: 'slack', url: 'not a url' }, 'url'],
      [{ name: 'x', kind: 'pager', url: 'https://example.com' }, 'kind'],
      [{ name: 'x', kind: 'slack', url: 'https://example.com', events: ['run_exploded'] }, 'events.0'],
      [{ name: 'x', kind: 'slack', url: 'https://example.com', events: ['run_failed', 'run_failed'] }, 'events'],
      [{ name: '', kind: 'slack', url: 'https://example.com' }, 'name'],
      [{ name: 'x', kind: 'slack', url: 'ftp://example.com' }, 'url'],
    ] as const) {
      const res = await api.post('/api/notifications/channels', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.details.issues.map((i: { path: string }) => i.path), JSON.stringify(body)).toContain(field);
    }
    expect((await api.post('/api/notifications/channels', { name: 'x', kind: 'slack', url: 'https://example.com', project_id: '01900000-0000-7000-8000-000000000000' })).status).toBe(404);
  });

  it('API keys cannot reach channels, even with admin scope; another organization gets 404', async () => {
    const key = client(server.url, { token: server.admin.apiKey });
    const res = await key.get('/api/notifications/channels');
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('FORBIDDEN');
    const other = await signUp(server.url, 'other-notifier@example.com');
    const stranger = client(server.url, { token: other.token, org: other.orgId });
    const id = channels['qa-alerts'].id;
    expect((await stranger.get(`/api/notifications/channels/${id}`)).status).toBe(404);
    expect((await stranger.patch(`/api/notifications/channels/${id}`, { enabled: false })).status).toBe(404);
    expect((await stranger.post(`/api/notifications/channels/${id}/test`)).status).toBe(404);
    expect((await stranger.get(`/api/notifications/channels/${id}/logs`)).status).toBe(404);
    expect((await stranger.delete(`/api/notifications/channels/${id}`)).status).toBe(404);
    expect((await stranger.get('/api/notifications/channels')).body.items).toEqual([]);
  });
});
