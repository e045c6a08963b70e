/**
 * A project's activity (GET /api/activity?project_id=) in a busy organization, over the
 * real server and its event consumers: the API consumer files each entry that names a
 * project in that project's own feed too, so a quiet project's entries are found however
 * many newer entries other projects have (the organization's feed alone held them only in
 * its newest 1,000). Entries recorded before project feeds existed still show, from the
 * organization's newest part, in time order with the rest.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activityKey } from '../../packages/core/src/events/api-consumer.ts';
import { client, signUp, startTestServer, type Client, type TestServer } from '../support/server.ts';

let server: TestServer;
let api: Client;
let orgId: string;
let busy: string;
let quiet: string;

beforeAll(async () => {
  server = await startTestServer();
  const user = await signUp(server.url, 'project-activity@example.com');
  orgId = user.orgId;
  api = client(server.url, { token: user.token, org: orgId });
  busy = (await api.post('/api/v1/projects', { name: 'busy' })).body.id;
  quiet = (await api.post('/api/v1/projects', { name: 'quiet' })).body.id;
});
afterAll(async () => {
  await server?.stop();
});

type Entry = { event_id: string; event_type: string; occurred_at: string; summary: string; refs: Record<string, string> };
const activity = async (query: string): Promise<Entry[]> => {
  const res = await api.get(`/api/activity${query}`);
  expect(res.status, res.text).toBe(200);
  return res.body.items;
};

describe("a project's activity", () => {
  it('finds a quiet project\'s entries behind 1,000 newer ones of another project, and keeps older entries', { timeout: 60_000 }, async () => {
    const created = await api.post('/api/tests', { project_id: quiet, name: 'checkout', type: 'api', steps: [{ type: 'request', url: 'http://127.0.0.1:9/' }] });
    expect(created.status, created.text).toBe(201);
    await expect.poll(async () => (await activity(`?project_id=${quiet}`)).map((e) => e.event_type), { timeout: 15_000 }).toEqual(['test.created']);

    // The busy project's 1,001 newer entries, and a newest entry of the quiet project as it was filed before project feeds (the organization's feed only).
    const table = server.runtime.deps.store.table;
    const base = Date.now() + 60_000;
    const entry = (i: number, project: string, at: number) => ({
      ...activityKey(orgId, new Date(at).toISOString(), `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`),
      entity: 'event_activity', event_id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`, event_type: 'test.failed', correlation_id: 'seed', source: 'svc.test-runner',
      occurred_at: new Date(at).toISOString(), summary: `failure ${i}`, refs: { project_id: project }, expiresAt: Math.floor(at / 1000) + 3600,
    });
    await table.put(entry(0, quiet, base + 5000));
    for (let i = 1; i <= 1001; i++) await table.put(entry(i, busy, base + i));

    const orgFeed = await activity('?limit=200');
    expect(orgFeed).toHaveLength(200);
    expect(orgFeed.filter((e) => e.refs.project_id === quiet).map((e) => e.event_type)).toEqual(['test.failed']);
    const quietFeed = await activity(`?project_id=${quiet}`);
    // Newest first: the entry filed the old way, then the test's creation from behind the busy project's 1,001.
    expect(quietFeed.map((e) => [e.event_type, e.refs.project_id])).toEqual([['test.failed', quiet], ['test.created', quiet]]);
    expect(quietFeed[1]).toMatchObject({ refs: { test_id: created.body.id, project_id: quiet } });
    expect(await activity(`?project_id=${quiet}&limit=1`)).toHaveLength(1);
    expect((await api.get(`/api/activity?project_id=${crypto.randomUUID()}`)).status).toBe(404);
  });
});
