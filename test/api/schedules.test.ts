/**
 * Scheduled runs end to end on the local runtime: schedules made through the API, the
 * runtime's own ticker (every 200 ms here) starting a due run that executes the project's
 * tests against the fixture app, "run now", the API's validation naming the field, the
 * audit log, and another organization's 404.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { client, signUp, type Client } from '../support/server.ts';
import { startRunGraphServer } from '../run-graph/support/api-server.ts';
import { startFixtureApp, type FixtureApp } from '../fixtures/app/server.ts';

let server: Awaited<ReturnType<typeof startRunGraphServer>>;
let fixture: FixtureApp;
let api: Client;
let stranger: Client;
let orgId: string;
let token: string;
let projectId: string;
const testIds: string[] = [];

beforeAll(async () => {
  fixture = await startFixtureApp();
  server = await startRunGraphServer({ env: { SVC_SCHEDULE_TICK_MS: '200' } });
  const owner = await signUp(server.url, 'scheduler@example.com');
  orgId = owner.orgId;
  token = owner.token;
  api = client(server.url, { token: owner.token, org: owner.orgId });
  projectId = (await api.post('/api/v1/projects', { name: 'shop', app_url: fixture.url })).body.id;
  for (const [name, url] of [['items list', '/api/items'], ['one item', '/api/items/1']]) {
    const created = await api.post('/api/tests', { project_id: projectId, name, type: 'api', tags: name === 'items list' ? ['smoke'] : [], steps: [{ type: 'request', url }], assertions: [{ type: 'status', equals: 200 }] });
    expect(created.status, created.text).toBe(201);
    testIds.push(created.body.id);
  }
  const other = await signUp(server.url, 'other-scheduler@example.com');
  stranger = client(server.url, { token: other.token, org: other.orgId });
});
afterAll(async () => {
  await server?.stop();
  await fixture?.close();
});

async function until<T>(what: string, probe: () => Promise<T | undefined>, ms = 30_000): Promise<T> {
  for (const deadline = Date.now() + ms; ; await new Promise((r) => setTimeout(r, 100))) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
  }
}

const finished = (runId: string) =>
  until(`run ${runId}`, async () => {
    const status = await api.get(`/api/v1/test/status/${runId}`);
    return ['completed', 'failed', 'cancelled'].includes(status.body.run.status) ? status.body.run : undefined;
  });

describe('scheduled runs', () => {
  let scheduleId: string;

  it('creates a schedule with its next run', async () => {
    const res = await api.post('/api/schedules', { project_id: projectId, name: 'smoke every 5 minutes', cron: '*/5 * * * *', tags: ['smoke'] });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ project_id: projectId, cron: '*/5 * * * *', timezone: 'UTC', enabled: true, tags: ['smoke'], test_ids: null, last_run_id: null });
    const next = Date.parse(res.body.next_run_at);
    expect(next).toBeGreaterThan(Date.now());
    expect(next - Date.now()).toBeLessThanOrEqual(5 * 60_000);
    expect(new Date(next).getUTCMinutes() % 5).toBe(0);
    scheduleId = res.body.id;
    const listed = await api.get(`/api/schedules?project_id=${projectId}`);
    expect(listed.body.items.map((s: { id: string }) => s.id)).toEqual([scheduleId]);
  });

  it('when its time comes, the runtime starts the run and it executes the tagged tests', async () => {
    // The minute arrives: move the slot to a moment ago (what the clock would do in five minutes).
    const store = server.runtime.deps.store;
    const current = await store.schedules.get(orgId, scheduleId);
    const slot = new Date(Date.now() - 1000).toISOString();
    await store.schedules.update(orgId, scheduleId, { next_run_at: slot }, current!.next_run_at);

    const schedule = await until('the scheduled run', async () => {
      const s = (await api.get(`/api/schedules/${scheduleId}`)).body;
      return s.last_run_id ? s : undefined;
    });
    expect(schedule.recent_runs).toEqual([{ run_id: schedule.last_run_id, slot, started_at: schedule.last_run_at }]);
    expect(Date.parse(schedule.next_run_at)).toBeGreaterThan(Date.now());
    const run = await finished(schedule.last_run_id);
    expect(run).toMatchObject({ status: 'completed', trigger: 'schedule', thread_id: `schedule-${scheduleId}-${Date.parse(slot)}`, passed_tests: 1, failed_tests: 0 });
    const results = await api.get(`/api/v1/tests/${run.id}/results`);
    expect(results.body.items.map((r: { test_id: string; status: string }) => [r.test_id, r.status])).toEqual([[testIds[0], 'passed']]);
  });

  it('runs now on demand, with every test when no tag or test is named', async () => {
    const all = await api.post('/api/schedules', { project_id: projectId, name: 'everything', cron: '@monthly' });
    const res = await api.post(`/api/schedules/${all.body.id}/run`);
    expect(res.status, res.text).toBe(201);
    expect(res.body.schedule).toMatchObject({ last_run_id: res.body.run.id, next_run_at: all.body.next_run_at });
    const run = await finished(res.body.run.id);
    expect(run).toMatchObject({ status: 'completed', trigger: 'schedule', passed_tests: 2 });
  });

  it('pauses, resumes, changes and deletes; the audit log keeps it', async () => {
    const paused = await api.patch(`/api/schedules/${scheduleId}`, { enabled: false });
    expect(paused.status, paused.text).toBe(200);
    expect(paused.body).toMatchObject({ enabled: false, next_run_at: null });
    const moved = await api.patch(`/api/schedules/${scheduleId}`, { enabled: true, cron: '30 6 * * 1', timezone: 'America/New_York' });
    expect(moved.body.enabled).toBe(true);
    expect(new Date(moved.body.next_run_at).getUTCDay()).toBe(1);
    expect([10, 11]).toContain(new Date(moved.body.next_run_at).getUTCHours()); // 06:30 in New York: EDT or EST
    expect((await api.delete(`/api/schedules/${scheduleId}`)).status).toBe(204);
    expect((await api.get(`/api/schedules/${scheduleId}`)).status).toBe(404);
    const audit = (await api.get('/api/audit-logs?limit=100')).body.items.map((e: { action: string }) => e.action);
    for (const action of ['schedule.create', 'schedule.update', 'schedule.run', 'schedule.delete']) expect(audit).toContain(action);
  });

  it('bad input names the field', async () => {
    const cases: Array<[Record<string, unknown>, string, RegExp?]> = [
      [{ project_id: projectId, name: 'x', cron: '61 * * * *' }, 'cron', /minute: 61/],
      [{ project_id: projectId, name: 'x', cron: '* * * * * *' }, 'cron', /five fields/],
      [{ project_id: projectId, name: 'x', cron: '@daily', timezone: 'Mars/Base' }, 'timezone'],
      [{ project_id: projectId, name: '', cron: '@daily' }, 'name'],
      [{ project_id: projectId, name: 'x', cron: '@daily', test_ids: ['01900000-0000-7000-8000-000000000000'] }, 'test_ids.0'],
      [{ project_id: projectId, name: 'x', cron: '@daily', every: 'day' }, 'every'],
    ];
    for (const [body, field, message] of cases) {
      const res = await api.post('/api/schedules', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.details.issues.map((i: { path: string }) => i.path), JSON.stringify(body)).toContain(field);
      if (message) expect(res.body.error.message).toMatch(message);
    }
    const none = await api.post('/api/schedules', { project_id: projectId, name: 'x', cron: '@daily', tags: ['none'] });
    const refused = await api.post(`/api/schedules/${none.body.id}/run`);
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toBe('no test of the project has one of the tags none');
  });

  it('an assistant lists the schedules through the MCP gateway', async () => {
    const agent = new McpClient({ name: 'svc-schedules-test', version: '1.0.0' });
    await agent.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}`, 'x-organization-id': orgId } } }));
    try {
      const listed = (await agent.callTool({ name: 'svc_schedules', arguments: { project_id: projectId } })) as CallToolResult;
      expect(listed.isError).toBeFalsy();
      const items = (listed.structuredContent as { items: Array<{ name: string; recent_runs: unknown[] }> }).items;
      expect(items.find((s) => s.name === 'everything')?.recent_runs).toHaveLength(1);
    } finally {
      await agent.close();
    }
  });

  it('another organization gets 404', async () => {
    const mine = (await api.get(`/api/schedules?project_id=${projectId}`)).body.items[0];
    expect((await stranger.get(`/api/schedules/${mine.id}`)).status).toBe(404);
    expect((await stranger.patch(`/api/schedules/${mine.id}`, { enabled: false })).status).toBe(404);
    expect((await stranger.delete(`/api/schedules/${mine.id}`)).status).toBe(404);
    expect((await stranger.post(`/api/schedules/${mine.id}/run`)).status).toBe(404);
    expect((await stranger.get(`/api/schedules?project_id=${projectId}`)).status).toBe(404);
    expect((await stranger.post('/api/schedules', { project_id: projectId, name: 'x', cron: '@daily' })).status).toBe(404);
    expect((await stranger.get('/api/schedules')).body.items).toEqual([]);
  });
});
