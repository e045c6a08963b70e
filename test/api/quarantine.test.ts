/**
 * Quarantine end to end on the local runtime: a member quarantines a test that fails by
 * design (the fixture app answers 404); a real run still executes it and keeps its failed
 * result, but the run is not a failed one for what judges runs — a webhook notification
 * channel hears run_passed, the run's summary counts the failure as quarantined, and every
 * report says so, and the insights timeline counts it as a quarantined failure of a run
 * that is not failing. Released, the same failure fails the next run again. Bad input names the
 * field; viewers cannot quarantine; another organization's test is a 404.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, signUp, type Client } from '../support/server.ts';
import { startRunGraphServer } from '../run-graph/support/api-server.ts';
import { startFixtureApp, type FixtureApp } from '../fixtures/app/server.ts';

let server: Awaited<ReturnType<typeof startRunGraphServer>>;
let fixture: FixtureApp;
let receiver: Server;
const events: string[] = [];
let api: Client;
let other: Client;
let owner: Awaited<ReturnType<typeof signUp>>;
let projectId: string;
let failingId: string;
let passingId: string;
/** The run while the failing test was quarantined, and the one after it was released. */
let quarantinedRun: string;
let releasedRun: string;

beforeAll(async () => {
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      events.push(JSON.parse(body).event);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
  fixture = await startFixtureApp();
  server = await startRunGraphServer();
  owner = await signUp(server.url, 'quarantine@example.com');
  api = client(server.url, { token: owner.token, org: owner.orgId });
  const stranger = await signUp(server.url, 'quarantine-stranger@example.com');
  other = client(server.url, { token: stranger.token, org: stranger.orgId });
  projectId = (await api.post('/api/v1/projects', { name: 'shop', app_url: fixture.url })).body.id;
  const create = async (name: string, url: string) => {
    const res = await api.post('/api/tests', { project_id: projectId, name, type: 'api', steps: [{ type: 'request', url }], assertions: [{ type: 'status', equals: 200 }] });
    expect(res.status, res.text).toBe(201);
    return res.body.id as string;
  };
  failingId = await create('legacy endpoint answers', '/api/no-such-thing');
  passingId = await create('items answer', '/api/items');
  const channel = await api.post('/api/notifications/channels', { name: 'ci', kind: 'webhook', url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`, events: ['run_passed', 'run_failed', 'run_recovered'] });
  expect(channel.status, channel.text).toBe(201);
});
afterAll(async () => {
  await server?.stop();
  await fixture?.close();
  await new Promise<void>((r) => receiver?.close(() => r()));
});

async function runToEnd() {
  const started = await api.post('/api/v1/test/run', { project_id: projectId, test_ids: [failingId, passingId], healing_enabled: false });
  expect(started.status, started.text).toBe(201);
  const runId = started.body.run.id as string;
  await expect.poll(async () => (await api.get(`/api/v1/test/status/${runId}`)).body.run.status, { timeout: 30_000 }).toBe('completed');
  return runId;
}

describe('quarantine', () => {
  it('a member quarantines a test: the reason, when and by whom; the list filters by it', async () => {
    const res = await api.post(`/api/tests/${failingId}/quarantine`, { reason: 'the legacy endpoint is being removed (JIRA-12)' });
    expect(res.status, res.text).toBe(200);
    expect(res.body.quarantine).toEqual({ reason: 'the legacy endpoint is being removed (JIRA-12)', since: expect.any(String), by: owner.userId });
    expect((await api.get(`/api/tests/${failingId}`)).body.quarantine.reason).toBe('the legacy endpoint is being removed (JIRA-12)');
    expect((await api.get(`/api/tests/${passingId}`)).body.quarantine).toBeNull();
    const only = await api.get(`/api/tests?project_id=${projectId}&quarantined=true`);
    expect(only.body.items.map((t: { id: string }) => t.id)).toEqual([failingId]);
    const rest = await api.get(`/api/tests?project_id=${projectId}&quarantined=false`);
    expect(rest.body.items.map((t: { id: string }) => t.id)).toEqual([passingId]);
    const audit = await api.get('/api/audit-logs?limit=20');
    expect(audit.body.items.map((e: { action: string }) => e.action)).toContain('test.quarantine');
  });

  it('a run executes it and keeps its failure, but the run passes: notified as passed, counted as quarantined, reported as such', async () => {
    const runId = (quarantinedRun = await runToEnd());
    const status = (await api.get(`/api/v1/test/status/${runId}`)).body;
    expect(status.run).toMatchObject({ failed_tests: 1, passed_tests: 1, results: { failed: 1, quarantined_failed: 1 } });
    const results = (await api.get(`/api/v1/tests/${runId}/results`)).body.items as Array<{ test_id: string; status: string; metadata: Record<string, unknown> }>;
    const failed = results.find((r) => r.test_id === failingId)!;
    expect(failed.status).toBe('failed');
    expect(failed.metadata.quarantined).toBe('the legacy endpoint is being removed (JIRA-12)');
    await expect.poll(() => events).toEqual(['run_passed']);

    const json = (await api.get(`/api/reports/${runId}?format=json`)).body;
    expect(json.run).toMatchObject({ failed: 1, quarantined: 1 });
    expect(json.tests.find((t: { id: string }) => t.id === failingId)).toMatchObject({ status: 'failed', quarantine: 'the legacy endpoint is being removed (JIRA-12)' });
    expect(json.tests.find((t: { id: string }) => t.id === passingId)).not.toHaveProperty('quarantine');
    const md = (await api.get(`/api/reports/${runId}?format=md`)).text;
    expect(md).toContain('**Quarantined:** the legacy endpoint is being removed (JIRA-12) — this failure does not fail the run');
    // The headline judges the run as its exit code and notifications do: the quarantined failure does not fail it.
    expect(md).toMatch(/^## ✅ Passed — /);
    const junit = (await api.get(`/api/reports/${runId}?format=junit`)).text;
    expect(junit).toContain('<property name="svc.quarantined" value="the legacy endpoint is being removed (JIRA-12)"/>');
    expect(junit).toMatch(/<failure /);
    const html = (await api.get(`/api/reports/${runId}?format=html`)).text;
    expect(html).toContain('>quarantined</span>');
    expect(html).toMatch(/<title>✓ /);
    expect(html).toContain('<header class="run-passed">');
  });

  it('released, the same failure fails the next run again', async () => {
    const released = await api.delete(`/api/tests/${failingId}/quarantine`);
    expect(released.status, released.text).toBe(200);
    expect(released.body.quarantine).toBeNull();
    const runId = (releasedRun = await runToEnd());
    expect((await api.get(`/api/v1/test/status/${runId}`)).body.run.results).toMatchObject({ failed: 1, quarantined_failed: 0 });
    await expect.poll(() => events).toEqual(['run_passed', 'run_failed']);
  });

  it("the insights timeline counts each run's quarantined failures and judges the run without them", async () => {
    const res = await api.get(`/api/analytics/timeline?project_id=${projectId}`);
    expect(res.status, res.text).toBe(200);
    const runs = res.body.runs as Array<{ run_id: string; failed: number; quarantined_failed: number; failing: boolean; pass_rate: number }>;
    expect(runs.map((r) => r.run_id)).toEqual([quarantinedRun, releasedRun]);
    // Both runs had the same failure; only the released one fails for it.
    expect(runs[0]).toMatchObject({ status: 'completed', passed: 1, failed: 1, quarantined_failed: 1, failing: false, pass_rate: 0.5 });
    expect(runs[1]).toMatchObject({ status: 'completed', passed: 1, failed: 1, quarantined_failed: 0, failing: true, pass_rate: 0.5 });
  });

  it('names a missing reason; a viewer may not quarantine; another organization gets 404', async () => {
    const bad = await api.post(`/api/tests/${failingId}/quarantine`, { reason: '  ' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.issues.map((i: { path: string }) => i.path)).toEqual(['reason']);
    expect((await other.post(`/api/tests/${failingId}/quarantine`, { reason: 'mine now' })).status).toBe(404);
    expect((await other.delete(`/api/tests/${failingId}/quarantine`)).status).toBe(404);
    const key = await api.post('/api/api-keys', { name: 'read only', permissions: ['read'] });
    expect(key.status, key.text).toBe(201);
    const viewer = client(server.url, { headers: { 'x-api-key': key.body.key } });
    expect((await viewer.post(`/api/tests/${failingId}/quarantine`, { reason: 'x' })).status).toBe(403);
    expect((await api.get(`/api/tests/${failingId}`)).body.quarantine).toBeNull();
  });
});
