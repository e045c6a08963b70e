/**
 * Test revisions over real HTTP on the local runtime: every definition change is a
 * revision, GET answers the revision as ETag, a stale If-Match / expected_revision is a
 * 412 naming who changed the test, and a kept revision can be restored.
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startTestServer, client, signUp, type TestServer, type Client } from '../support/server.ts';

let server: TestServer;
let member: Client;
let userId: string;
let orgId: string;
let projectId: string;

beforeAll(async () => {
  server = await startTestServer();
  const user = await signUp(server.url, 'revisions@example.com');
  userId = user.userId;
  orgId = user.orgId;
  member = client(server.url, { token: user.token, org: user.orgId });
  projectId = (await member.post('/api/v1/projects', { name: 'shop', app_url: 'http://127.0.0.1:3000' })).body.id;
});
afterAll(async () => server?.stop());

const newTest = async (name: string) => {
  const res = await member.post('/api/tests', { project_id: projectId, name, type: 'ui', steps: [{ type: 'goto', url: '/' }], tags: ['a'] });
  expect(res.status, res.text).toBe(201);
  return res.body as { id: string; revision: number; updated_at: string };
};

describe('test revisions', () => {
  it('create is revision 1; GET answers ETag "1"; each PATCH adds a revision listing who, why and which fields', async () => {
    const test = await newTest('history');
    expect(test.revision).toBe(1);
    const got = await member.get(`/api/tests/${test.id}`);
    expect(got.headers.get('etag')).toBe('"1"');

    const edit = await member.patch(`/api/tests/${test.id}`, { name: 'history, renamed', tags: ['a'] }, { headers: { 'if-match': '"1"' } });
    expect(edit.status, edit.text).toBe(200);
    expect(edit.body.revision).toBe(2);
    expect(edit.headers.get('etag')).toBe('"2"');
    const third = await member.patch(`/api/tests/${test.id}`, { steps: [{ type: 'goto', url: '/cart' }] });
    expect(third.body.revision).toBe(3);
    // A change that alters nothing writes no revision.
    const same = await member.patch(`/api/tests/${test.id}`, { steps: [{ type: 'goto', url: '/cart' }] });
    expect(same.body.revision).toBe(3);

    const list = await member.get(`/api/tests/${test.id}/revisions`);
    expect(list.status).toBe(200);
    expect(list.body.items).toEqual([
      { test_id: test.id, revision: 3, created_at: third.body.updated_at, changed_by: `user:${userId}`, changed_by_name: 'revisions@example.com', source: 'edited', changed_fields: ['steps'], restored_from: null },
      { test_id: test.id, revision: 2, created_at: edit.body.updated_at, changed_by: `user:${userId}`, changed_by_name: 'revisions@example.com', source: 'edited', changed_fields: ['name'], restored_from: null },
      expect.objectContaining({ revision: 1, source: 'created', changed_by: `user:${userId}`, created_at: test.updated_at }),
    ]);
    const page1 = await member.get(`/api/tests/${test.id}/revisions?limit=2`);
    expect(page1.body.items.map((r: { revision: number }) => r.revision)).toEqual([3, 2]);
    const page2 = await member.get(`/api/tests/${test.id}/revisions?limit=2&cursor=${encodeURIComponent(page1.body.next_cursor)}`);
    expect(page2.body.items.map((r: { revision: number }) => r.revision)).toEqual([1]);
    expect(page2.body.next_cursor).toBeNull();

    const one = await member.get(`/api/tests/${test.id}/revisions/2`);
    expect(one.status).toBe(200);
    expect(one.body.definition).toMatchObject({ name: 'history, renamed', steps: [{ type: 'goto', url: '/' }], tags: ['a'], type: 'ui', priority: 'medium' });
  });

  it('a stale If-Match or expected_revision is 412 PRECONDITION_FAILED naming the current revision and who changed it when; nothing changes', async () => {
    const test = await newTest('contended');
    const mine = await member.patch(`/api/tests/${test.id}`, { description: 'first editor' }, { headers: { 'if-match': '"1"' } });
    expect(mine.status).toBe(200);
    const stale = await member.patch(`/api/tests/${test.id}`, { description: 'second editor' }, { headers: { 'if-match': '"1"' } });
    expect(stale.status).toBe(412);
    expect(stale.body.error.code).toBe('PRECONDITION_FAILED');
    expect(stale.body.error.message).toContain('revision 2');
    // The message names the member by email; details keep the id for programs.
    expect(stale.body.error.message).toContain('changed by revisions@example.com at');
    expect(stale.body.error.message).toContain(mine.body.updated_at);
    expect(stale.body.error.details).toEqual({ current_revision: 2, changed_by: `user:${userId}`, changed_by_name: 'revisions@example.com', changed_at: mine.body.updated_at });
    const staleBody = await member.patch(`/api/tests/${test.id}`, { description: 'second editor', expected_revision: 1 });
    expect(staleBody.status).toBe(412);
    expect((await member.get(`/api/tests/${test.id}`)).body).toMatchObject({ description: 'first editor', revision: 2 });

    expect((await member.patch(`/api/tests/${test.id}`, { description: 'any', expected_revision: 2 })).body.revision).toBe(3);
    expect((await member.patch(`/api/tests/${test.id}`, { description: 'star' }, { headers: { 'if-match': '*' } })).body.revision).toBe(4);
  });

  it("a change made with an API key is named by the key's name in the 412, and by its id in details", async () => {
    const test = await newTest('keyed');
    const created = await member.post('/api/api-keys', { name: 'nightly CI', permissions: ['read', 'write'] });
    expect(created.status, created.text).toBe(201);
    const ci = client(server.url, { token: created.body.key });
    expect((await ci.patch(`/api/tests/${test.id}`, { description: 'from CI' })).status).toBe(200);
    const stale = await member.patch(`/api/tests/${test.id}`, { description: 'mine' }, { headers: { 'if-match': '"1"' } });
    expect(stale.status).toBe(412);
    expect(stale.body.error.message).toMatch(/^test \S+ is at revision 2, changed by API key "nightly CI" at /);
    expect(stale.body.error.details).toMatchObject({ changed_by: `api_key:${created.body.id}`, changed_by_name: 'API key "nightly CI"' });
    // The history names writers the same way.
    const history = (await member.get(`/api/tests/${test.id}/revisions`)).body.items;
    expect(history.map((r: { changed_by_name: string }) => r.changed_by_name)).toEqual(['API key "nightly CI"', 'revisions@example.com']);
    expect((await member.get(`/api/tests/${test.id}/revisions/2`)).body).toMatchObject({ changed_by: `api_key:${created.body.id}`, changed_by_name: 'API key "nightly CI"' });
    // A revoked key is still named (its record stays): the history keeps reading.
    expect((await member.delete(`/api/api-keys/${created.body.id}`)).status).toBe(200);
    expect((await member.get(`/api/tests/${test.id}/revisions?limit=1`)).body.items[0].changed_by_name).toBe('API key "nightly CI"');
  });

  it('concurrent PATCHes on one revision: exactly one wins, the others get 412, and no revision is lost', async () => {
    const test = await newTest('race');
    const answers = await Promise.all([0, 1, 2, 3].map((i) => member.patch(`/api/tests/${test.id}`, { description: `writer ${i}` }, { headers: { 'if-match': '"1"' } })));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 412, 412, 412]);
    // Last write wins without If-Match, but every write is a revision of its own.
    const blind = await Promise.all([0, 1, 2].map((i) => member.patch(`/api/tests/${test.id}`, { name: `blind ${i}` })));
    const ok = blind.filter((a) => a.status === 200);
    expect(ok.length).toBeGreaterThanOrEqual(2);
    const list = (await member.get(`/api/tests/${test.id}/revisions`)).body.items.map((r: { revision: number }) => r.revision);
    const current = (await member.get(`/api/tests/${test.id}`)).body.revision;
    expect(list).toEqual(Array.from({ length: current }, (_, i) => current - i));
    expect(current).toBe(2 + ok.length);
  });

  it('restore makes a kept definition current as a new revision, honours If-Match, and is audited', async () => {
    const test = await newTest('restore me');
    await member.patch(`/api/tests/${test.id}`, { name: 'broken edit', steps: [], browser: { viewport: { width: 400, height: 800 } } });
    const stale = await member.post(`/api/tests/${test.id}/revisions/1/restore`, {}, { headers: { 'if-match': '"1"' } });
    expect(stale.status).toBe(412);
    const res = await member.post(`/api/tests/${test.id}/revisions/1/restore`, {}, { headers: { 'if-match': '"2"' } });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ name: 'restore me', steps: [{ type: 'goto', url: '/' }], revision: 3 });
    expect(res.body.browser).toBeUndefined();
    expect(res.headers.get('etag')).toBe('"3"');
    const latest = (await member.get(`/api/tests/${test.id}/revisions?limit=1`)).body.items[0];
    expect(latest).toMatchObject({ revision: 3, source: 'restored', restored_from: 1, changed_by: `user:${userId}` });
    expect(latest.changed_fields.sort()).toEqual(['browser', 'name', 'steps']);
    const audit = await member.get('/api/audit-logs');
    expect(audit.body.items.find((e: { action: string }) => e.action === 'test.restore')).toMatchObject({ resource: `test:${test.id}`, metadata: { restored_from: 1, revision: 3 } });
  });

  it('bad input names the field; unknown revisions and other organizations are 404; viewers read but cannot restore', async () => {
    const test = await newTest('guarded');
    const bad = await member.get(`/api/tests/${test.id}/revisions/abc`);
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.issues.map((i: { path: string }) => i.path)).toEqual(['revision']);
    expect((await member.get(`/api/tests/${test.id}/revisions/0`)).status).toBe(400);
    const badEtag = await member.patch(`/api/tests/${test.id}`, { name: 'x' }, { headers: { 'if-match': 'yesterday' } });
    expect(badEtag.status).toBe(400);
    expect(badEtag.body.error.details.issues.map((i: { path: string }) => i.path)).toEqual(['If-Match']);
    const disagree = await member.patch(`/api/tests/${test.id}`, { name: 'x', expected_revision: 2 }, { headers: { 'if-match': '"1"' } });
    expect(disagree.body.error.details.issues.map((i: { path: string }) => i.path)).toEqual(['expected_revision']);
    const onlyRevision = await member.patch(`/api/tests/${test.id}`, { expected_revision: 1 });
    expect(onlyRevision.status).toBe(400);
    expect((await member.get(`/api/tests/${test.id}/revisions/9`)).status).toBe(404);
    expect((await member.post(`/api/tests/${test.id}/revisions/9/restore`, {})).status).toBe(404);

    const stranger = await signUp(server.url, 'revisions-stranger@example.com');
    const them = client(server.url, { token: stranger.token, org: stranger.orgId });
    expect((await them.get(`/api/tests/${test.id}/revisions`)).status).toBe(404);
    expect((await them.get(`/api/tests/${test.id}/revisions/1`)).status).toBe(404);
    expect((await them.post(`/api/tests/${test.id}/revisions/1/restore`, {})).status).toBe(404);

    const key = await member.post('/api/api-keys', { name: 'read only', permissions: ['read'] });
    const viewer = client(server.url, { headers: { 'x-api-key': key.body.key } });
    expect((await viewer.get(`/api/tests/${test.id}/revisions`)).status).toBe(200);
    expect((await viewer.get(`/api/tests/${test.id}/revisions/1`)).status).toBe(200);
    expect((await viewer.post(`/api/tests/${test.id}/revisions/1/restore`, {})).status).toBe(403);
  });

  it('a listed browser origin may send If-Match and read the ETag', async () => {
    const origin = 'https://editor.example';
    const other = await startTestServer({ env: { SVC_CORS_ORIGINS: origin } });
    try {
      const preflight = await fetch(`${other.url}/api/tests/x`, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'PATCH', 'access-control-request-headers': 'if-match' } });
      expect(preflight.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('if-match');
      const get = await fetch(`${other.url}/health`, { headers: { origin } });
      expect(get.headers.get('access-control-expose-headers')?.toLowerCase()).toContain('etag');
    } finally {
      await other.stop();
    }
  });

  it('deleting a test deletes its revisions', async () => {
    const test = await newTest('gone');
    await member.patch(`/api/tests/${test.id}`, { name: 'gone 2' });
    expect((await member.delete(`/api/tests/${test.id}`)).status).toBe(204);
    const rows = await server.runtime.deps.store.table.query({ pk: `ORG#${orgId}`, skPrefix: `TESTREV#${test.id}#` });
    expect(rows.items).toEqual([]);
    expect((await member.get(`/api/tests/${test.id}/revisions`)).status).toBe(404);
  });
});
