/**
 * Review comments over HTTP on the real local runtime: threads on a run that ran in this
 * test (and on a test), answers, edits by the author only, resolving by any member,
 * deleting (a thread's first comment with answers keeps its place), roles (viewers read,
 * API keys and agents refused, the spec's "dashboard only"), fields named on bad input,
 * another organization's ids a 404, and the audit log.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, runEnded, signUp, type Client } from '../support/server.ts';
import { startRunGraphServer } from '../run-graph/support/api-server.ts';
import { startFixtureApp, type FixtureApp } from '../fixtures/app/server.ts';

let server: Awaited<ReturnType<typeof startRunGraphServer>>;
let fixture: FixtureApp;
let owner: Client;
let member: Client;
let viewer: Client;
let key: Client;
let stranger: Client;
let projectId: string;
let testId: string;
let runId: string;

async function join(admin: Client, email: string, role: 'viewer' | 'member', orgId: string): Promise<Client> {
  const invite = await admin.post('/api/teams/invitations', { email, role });
  const joined = await signUp(server.url, email);
  const accepted = await client(server.url, { token: joined.token }).post('/api/teams/invitations/accept', { token: invite.body.token });
  expect(accepted.status, accepted.text).toBeLessThan(300);
  return client(server.url, { token: joined.token, org: orgId });
}

beforeAll(async () => {
  fixture = await startFixtureApp();
  server = await startRunGraphServer();
  const me = await signUp(server.url, 'reviewer@example.com');
  owner = client(server.url, { token: me.token, org: me.orgId });
  member = await join(owner, 'qa@example.com', 'member', me.orgId);
  viewer = await join(owner, 'manager@example.com', 'viewer', me.orgId);
  const apiKey = (await owner.post('/api/api-keys', { name: 'ci', permissions: ['read', 'write'] })).body.key;
  key = client(server.url, { token: apiKey });
  const them = await signUp(server.url, 'other-reviewer@example.com');
  stranger = client(server.url, { token: them.token, org: them.orgId });

  projectId = (await owner.post('/api/v1/projects', { name: 'shop', app_url: fixture.url })).body.id;
  const test = await owner.post('/api/tests', {
    project_id: projectId, name: 'items answer', type: 'api',
    steps: [{ type: 'request', method: 'GET', url: '/api/items' }], assertions: [{ type: 'status', equals: 200 }],
  });
  expect(test.status, test.text).toBe(201);
  testId = test.body.id;
  const started = await owner.post('/api/v1/test/run', { project_id: projectId, test_ids: [testId] });
  expect(started.status, started.text).toBe(201);
  runId = started.body.run.id;
  expect((await runEnded(owner, runId)).status).toBe('completed');
}, 120_000);
afterAll(async () => {
  await server?.stop();
  await fixture?.close();
});

const onRun = (body: Record<string, unknown>, as: Client = member) => as.post('/api/comments', { target_type: 'run', target_id: runId, ...body });
const listRun = (as: Client = member) => as.get(`/api/comments?target_type=run&target_id=${runId}`);

describe('review comments', () => {
  let threadId: string;
  let answerId: string;

  it('a member starts a thread on a run about one of its tests; another answers; everyone in the organization reads it', async () => {
    const started = await onRun({ body: 'Why does this one call /api/items twice?', test_id: testId });
    expect(started.status, started.text).toBe(201);
    expect(started.body).toMatchObject({
      target_type: 'run', target_id: runId, project_id: projectId, test_id: testId, parent_id: null,
      body: 'Why does this one call /api/items twice?', author: expect.stringMatching(/^user:/), author_email: 'qa@example.com',
      resolved: false, resolved_by: null, edited_at: null, deleted_at: null,
    });
    threadId = started.body.id;

    const answer = await onRun({ body: 'It does not: the second is the retry.', parent_id: threadId }, owner);
    expect(answer.status, answer.text).toBe(201);
    expect(answer.body).toMatchObject({ parent_id: threadId, test_id: testId, author_email: 'reviewer@example.com' });
    answerId = answer.body.id;

    const list = await listRun(viewer);
    expect(list.status, list.text).toBe(200);
    expect(list.body.items.map((c: { id: string }) => c.id)).toEqual([threadId, answerId]);
    expect(list.body.open_threads).toBe(1);
    expect((await viewer.get(`/api/v1/comments/${answerId}`)).body.body).toBe('It does not: the second is the retry.');
  });

  it('viewers read but do not write; API keys are refused even for reading', async () => {
    const byViewer = await onRun({ body: 'looks fine' }, viewer);
    expect(byViewer.status).toBe(403);
    expect(byViewer.body.error.code).toBe('INSUFFICIENT_ROLE');
    for (const res of [await listRun(key), await onRun({ body: 'from CI' }, key)]) {
      expect(res.status).toBe(403);
      expect(res.body.error.message).toContain('dashboard users only');
    }
    expect((await listRun()).body.items).toHaveLength(2);
  });

  it('only the author edits the text; any member resolves and reopens a thread, on its first comment only', async () => {
    const notMine = await owner.patch(`/api/comments/${threadId}`, { body: 'rewritten' });
    expect(notMine.status).toBe(403);
    const edited = await member.patch(`/api/comments/${threadId}`, { body: 'Why does it call /api/items twice?' });
    expect(edited.status, edited.text).toBe(200);
    expect(edited.body.edited_at).toEqual(expect.any(String));

    const onAnswer = await owner.patch(`/api/comments/${answerId}`, { resolved: true });
    expect(onAnswer.status).toBe(400);
    expect(onAnswer.body.error.details.issues).toEqual([{ path: 'resolved', message: expect.stringContaining('first comment') }]);

    const resolved = await owner.patch(`/api/comments/${threadId}`, { resolved: true });
    expect(resolved.status, resolved.text).toBe(200);
    expect(resolved.body).toMatchObject({ resolved: true, resolved_by: expect.stringMatching(/^user:/), body: 'Why does it call /api/items twice?' });
    expect((await listRun()).body.open_threads).toBe(0);
    const reopened = await member.patch(`/api/comments/${threadId}`, { resolved: false });
    expect(reopened.body).toMatchObject({ resolved: false, resolved_by: null, resolved_at: null });
  });

  it('bad input names the field and stores nothing', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ body: '   ' }, 'body'],
      [{ body: 'x', parent_id: answerId }, 'parent_id'],
      [{ body: 'x', test_id: '00000000-0000-4000-8000-000000000000' }, 'test_id'],
      [{ body: 'x', colour: 'red' }, 'colour'],
    ];
    for (const [body, field] of cases) {
      const res = await onRun(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.details.issues.map((i: { path: string }) => i.path), JSON.stringify(body)).toContain(field);
    }
    const wrongType = await member.post('/api/comments', { target_type: 'dashboard', target_id: runId, body: 'x' });
    expect(wrongType.body.error.details.issues[0].path).toBe('target_type');
    const testIdOnTest = await member.post('/api/comments', { target_type: 'test', target_id: testId, body: 'x', test_id: testId });
    expect(testIdOnTest.body.error.details.issues).toEqual([{ path: 'test_id', message: 'only a comment on a run names a test' }]);
    expect((await member.patch(`/api/comments/${threadId}`, {})).status).toBe(400);
    expect((await listRun()).body.items).toHaveLength(2);
  });

  it('comments on a test are its own, and a target that does not exist is a 404', async () => {
    const onTest = await member.post('/api/comments', { target_type: 'test', target_id: testId, body: 'Should assert the body too.' });
    expect(onTest.status, onTest.text).toBe(201);
    expect(onTest.body).toMatchObject({ target_type: 'test', project_id: projectId, test_id: null });
    expect((await member.get(`/api/comments?target_type=test&target_id=${testId}`)).body.items.map((c: { id: string }) => c.id)).toEqual([onTest.body.id]);
    expect((await listRun()).body.items).toHaveLength(2);
    const nothing = await member.post('/api/comments', { target_type: 'visual_baseline', target_id: '00000000-0000-4000-8000-000000000000', body: 'x' });
    expect(nothing.status).toBe(404);
    expect(nothing.body.error.message).toBe('visual baseline not found');
  });

  it("another organization sees none of it: the target and the comments are a 404", async () => {
    expect((await listRun(stranger)).status).toBe(404);
    expect((await onRun({ body: 'hello' }, stranger)).status).toBe(404);
    expect((await stranger.get(`/api/comments/${threadId}`)).status).toBe(404);
    expect((await stranger.patch(`/api/comments/${threadId}`, { resolved: true })).status).toBe(404);
    expect((await stranger.delete(`/api/comments/${threadId}`)).status).toBe(404);
    expect((await listRun()).body.items.map((c: { resolved: boolean }) => c.resolved)).toEqual([false, false]);
  });

  it("deleting: the author or an admin; a thread's first comment keeps its place while answers remain", async () => {
    expect((await member.delete(`/api/comments/${answerId}`)).status).toBe(403); // the owner's answer
    expect((await member.delete(`/api/comments/${threadId}`)).status).toBe(204);
    let list = (await listRun()).body;
    expect(list.items).toHaveLength(2);
    expect(list.items[0]).toMatchObject({ id: threadId, body: '', deleted_at: expect.any(String) });
    expect(list.open_threads).toBe(1); // its answers are still open
    expect((await member.patch(`/api/comments/${threadId}`, { body: 'back' })).status).toBe(409);
    expect((await member.delete(`/api/comments/${threadId}`)).status).toBe(404); // deleted already
    // Its thread can still be resolved, so it does not stay open for ever.
    expect((await owner.patch(`/api/comments/${threadId}`, { resolved: true })).body).toMatchObject({ resolved: true, body: '' });
    expect((await listRun()).body.open_threads).toBe(0);

    expect((await owner.delete(`/api/comments/${answerId}`)).status).toBe(204); // the last answer: the thread goes
    list = (await listRun()).body;
    expect(list).toEqual({ items: [], open_threads: 0 });

    const another = await onRun({ body: 'A second look.' });
    expect((await owner.delete(`/api/v1/comments/${another.body.id}`)).status).toBe(204); // an admin deletes anyone's
    expect((await listRun()).body.items).toEqual([]);
  });

  it('the audit log records who commented, edited and deleted', async () => {
    const log = await owner.get('/api/audit-logs?limit=100');
    const actions = log.body.items.map((e: { action: string }) => e.action);
    expect(actions).toEqual(expect.arrayContaining(['comment.create', 'comment.update', 'comment.delete']));
  });
});
