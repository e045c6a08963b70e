/**
 * A project's activity (GET /api/activity?project_id=) in a busy organization, over the
 * real server and its event consumers: the API consumer files each entry that names a
 * project in that project's own feed too, so a quiet project's entries are found however
 * many newer entries other projects have (the organization's feed alone held them only in
 * its newest 1,000). Entries recorded before project feeds existed still show, from the
 * organization's newest part, in time order with the rest.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activityKey, projectActivityKey } from '../../packages/core/src/events/api-consumer.ts';
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

  it('pages through the whole feed with next_cursor: no entry twice, none left out; a cursor of another list is a 400 naming cursor', { timeout: 60_000 }, async () => {
    // The feed holds the 1,002 seeded entries and the test's creation (the test above).
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await api.get(`/api/activity?limit=150${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(res.status, res.text).toBe(200);
      seen.push(...res.body.items.map((e: Entry) => e.event_id));
      cursor = res.body.next_cursor;
      pages++;
    } while (cursor);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toHaveLength(1003);
    expect(pages).toBe(7);
    expect(seen.slice(0, 3)).toEqual(['00000000-0000-4000-8000-000000000000', '00000000-0000-4000-8000-000000001001', '00000000-0000-4000-8000-000000001000']);

    // A project's own feed pages the same way, its cursor resuming within that project's entries.
    const paged = (await api.post('/api/v1/projects', { name: 'paged' })).body.id as string;
    const table = server.runtime.deps.store.table;
    const at = Date.now() + 120_000;
    for (let i = 0; i < 250; i++) {
      const id = `00000000-0000-4000-9000-${String(i).padStart(12, '0')}`;
      const when = new Date(at + i).toISOString();
      await table.put({
        ...projectActivityKey(orgId, paged, when, id),
        entity: 'event_activity', event_id: id, event_type: 'test.failed', correlation_id: 'seed', source: 'svc.test-runner',
        occurred_at: when, summary: `failure ${i}`, refs: { project_id: paged }, expiresAt: Math.floor(at / 1000) + 3600,
      });
    }
    const pagedIds: string[] = [];
    let pageOne: { next_cursor: string } | undefined;
    cursor = null;
    do {
      const res = await api.get(`/api/activity?project_id=${paged}&limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(res.status, res.text).toBe(200);
      pageOne ??= res.body;
      pagedIds.push(...res.body.items.map((e: Entry) => e.event_id));
      cursor = res.body.next_cursor;
    } while (cursor);
    expect(pagedIds).toHaveLength(250);
    expect(new Set(pagedIds).size).toBe(250);
    expect(pagedIds[0]).toBe('00000000-0000-4000-9000-000000000249');
    expect((await api.get(`/api/activity?limit=201`)).status).toBe(400);

    // The project's cursor is not a cursor of the organization's feed, nor of another project's.
    for (const query of ['', `project_id=${quiet}&`]) {
      const wrong = await api.get(`/api/activity?${query}cursor=${encodeURIComponent(pageOne!.next_cursor)}`);
      expect(wrong.status, wrong.text).toBe(400);
      expect(wrong.body.error.details.issues.map((i: { path: string | string[] }) => [i.path].flat().join('.'))).toEqual(['cursor']);
    }
    const garbage = await api.get('/api/activity?cursor=not-a-cursor');
    expect(garbage.status).toBe(400);
  });
});
