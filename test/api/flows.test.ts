/**
 * Flows through the API on the local runtime: CRUD with bad input named by field, names
 * unique regardless of case, cycles refused, viewers read and members write, a test saved
 * with a bad `use` refused naming `steps.N.…`, a server run expanding the stored flow
 * (results name the flow step) against the fixture app, and a flow in use neither deleted
 * nor renamed (409 naming the test), and a revision using a flow since deleted not restored. Another organization's flows are covered by
 * tenant-isolation.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, runEnded, signUp, type Client } from '../support/server.ts';
import { startRunGraphServer } from '../run-graph/support/api-server.ts';
import { startFixtureApp, type FixtureApp } from '../fixtures/app/server.ts';

let server: Awaited<ReturnType<typeof startRunGraphServer>>;
let fixture: FixtureApp;
let api: Client;
let viewer: Client;
let orgId: string;
let projectId: string;

beforeAll(async () => {
  fixture = await startFixtureApp();
  server = await startRunGraphServer();
  const owner = await signUp(server.url, 'flows@example.com');
  orgId = owner.orgId;
  api = client(server.url, { token: owner.token, org: orgId });
  const invite = await api.post('/api/teams/invitations', { email: 'flow-viewer@example.com', role: 'viewer' });
  const v = await signUp(server.url, 'flow-viewer@example.com');
  await client(server.url, { token: v.token }).post('/api/teams/invitations/accept', { token: invite.body.token });
  viewer = client(server.url, { token: v.token, org: orgId });
  projectId = (await api.post('/api/v1/projects', { name: 'shop', app_url: fixture.url })).body.id;
}, 60_000);
afterAll(async () => {
  await server?.stop();
  await fixture?.close();
});

const issuesOf = (res: { body: { error: { details: { issues: Array<{ path: string; message: string }> } } } }) => res.body.error.details.issues;

const createItem = {
  name: 'create item',
  parameters: [{ name: 'name' }, { name: 'price', default: 1 }],
  steps: [
    { type: 'request', method: 'POST', url: '/api/items', auth: { type: 'bearer', token: 'fixture-token' }, json: { name: '{{name}}', price: '{{price}}' }, save: { item_id: '$.body.id' } },
    { type: 'assert', assertion: { type: 'status', equals: 201 } },
  ],
};

const finished = (runId: string) => runEnded(api, runId);

describe('/api/flows', () => {
  let flowId: string;
  let testId: string;

  it('creates a flow (members), lists and reads it (viewers); a viewer cannot write', async () => {
    const created = await api.post('/api/flows', { project_id: projectId, ...createItem });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({ project_id: projectId, name: 'create item', description: null, parameters: createItem.parameters });
    flowId = created.body.id;
    const list = await viewer.get(`/api/flows?project_id=${projectId}`);
    expect(list.status).toBe(200);
    expect(list.body.items.map((f: { name: string }) => f.name)).toEqual(['create item']);
    expect((await viewer.get(`/api/flows/${flowId}`)).body.steps).toHaveLength(2);
    expect((await viewer.post('/api/flows', { project_id: projectId, name: 'x', steps: [{ type: 'goto', url: '/' }] })).status).toBe(403);
    expect((await viewer.delete(`/api/flows/${flowId}`)).status).toBe(403);
  });

  it('names the field of bad input; a name taken regardless of case is a 409; cycles are refused naming them', async () => {
    const cases: Array<[unknown, string]> = [
      [{ name: 'a', steps: [{ type: 'goto', url: '/' }] }, 'project_id'],
      [{ project_id: projectId, name: 'bad/name', steps: [{ type: 'goto', url: '/' }] }, 'name'],
      [{ project_id: projectId, name: 'empty', steps: [] }, 'steps'],
      [{ project_id: projectId, name: 'p', parameters: [{ name: 'x' }, { name: 'x' }], steps: [{ type: 'goto', url: '/' }] }, 'parameters.1.name'],
      [{ project_id: projectId, name: 'uses nothing', steps: [{ type: 'use', flow: 'nowhere' }] }, 'steps.0.flow'],
      [{ project_id: projectId, name: 'wrong with', steps: [{ type: 'use', flow: 'create item', with: { nam: 'x' } }] }, 'steps.0.with.nam'],
    ];
    for (const [body, field] of cases) {
      const res = await api.post('/api/flows', body);
      expect(res.status, `${JSON.stringify(body)}: ${res.text}`).toBe(400);
      expect(issuesOf(res).map((i) => i.path)).toContain(field);
    }
    expect(issuesOf(await api.post('/api/flows', cases[4][0]))[0].message).toBe('unknown flow "nowhere" (flows: create item, uses nothing)');
    const dup = await api.post('/api/flows', { project_id: projectId, name: 'Create Item', steps: [{ type: 'goto', url: '/' }] });
    expect(dup.status).toBe(409);
    expect(dup.body.error.message).toMatch(/a flow named "Create Item" already exists/);
    expect((await api.post('/api/flows', { project_id: '00000000-0000-4000-8000-000000000000', name: 'y', steps: [{ type: 'goto', url: '/' }] })).status).toBe(404);

    const a = await api.post('/api/flows', { project_id: projectId, name: 'sign-in', steps: [{ type: 'goto', url: '/login' }] });
    const b = await api.post('/api/flows', { project_id: projectId, name: 'open-admin', steps: [{ type: 'use', flow: 'sign-in' }] });
    expect([a.status, b.status]).toEqual([201, 201]);
    const cycle = await api.patch(`/api/flows/${a.body.id}`, { steps: [{ type: 'use', flow: 'open-admin' }] });
    expect(cycle.status).toBe(400);
    expect(issuesOf(cycle)).toEqual([{ path: 'steps.0.flow', message: 'flows use each other in a cycle: sign-in → open-admin → sign-in' }]);
    // A flow another flow uses cannot go.
    const used = await api.delete(`/api/flows/${a.body.id}`);
    expect(used.status).toBe(409);
    expect(used.body.error.message).toBe('flow "sign-in" cannot be deleted: it is used by flow "open-admin"');
    expect((await api.delete(`/api/flows/${b.body.id}`)).status).toBe(204);
    expect((await api.delete(`/api/flows/${a.body.id}`)).status).toBe(204);
    expect((await api.get(`/api/flows/${a.body.id}`)).status).toBe(404);
  });

  it('a test with a bad use step is refused naming steps.N; a good one is saved', async () => {
    const base = { project_id: projectId, name: 'item reads back', type: 'api' };
    const unknown = await api.post('/api/tests', { ...base, steps: [{ type: 'request', url: '/api/items' }, { type: 'use', flow: 'create tiem', with: { name: 'lamp' } }] });
    expect(unknown.status).toBe(400);
    expect(issuesOf(unknown)).toEqual([{ path: 'steps.1.flow', message: 'unknown flow "create tiem" (flows: create item)' }]);
    const missing = await api.post('/api/tests', { ...base, steps: [{ type: 'use', flow: 'create item' }] });
    expect(missing.status).toBe(400);
    expect(issuesOf(missing)).toEqual([{ path: 'steps.0.with.name', message: 'required: flow "create item" needs name (it has no default)' }]);

    const saved = await api.post('/api/tests', {
      ...base,
      steps: [
        { type: 'use', flow: 'CREATE ITEM', with: { name: 'lamp', price: 12.5 } },
        { type: 'request', url: '/api/items/{{item_id}}' },
        { type: 'assert', assertion: { type: 'json', path: '$.price', equals: 12.5 } },
      ],
    });
    expect(saved.status, saved.text).toBe(201);
    testId = saved.body.id;
    const patch = await api.patch(`/api/tests/${testId}`, { steps: [{ type: 'use', flow: 'create item', with: { name: 'x', colour: 'red' } }] });
    expect(patch.status).toBe(400);
    expect(issuesOf(patch)[0].path).toBe('steps.0.with.colour');
  });

  it('a server run expands the stored flow: the flow saves item_id for the test, results name the flow step', async () => {
    const started = await api.post('/api/v1/test/run', { project_id: projectId, test_ids: [testId], healing_enabled: false });
    expect(started.status, started.text).toBe(201);
    const run = await finished(started.body.run.id);
    expect(run.status).toBe('completed');
    const results = (await api.get(`/api/v1/tests/${run.id}/results`)).body.items;
    expect(results[0].status, JSON.stringify(results[0])).toBe('passed');
    expect(results[0].metadata.steps.map((s: { description: string; origin?: unknown }) => [s.description.replace(/\/\d+$/, '/N'), s.origin ?? null])).toEqual([
      ['POST /api/items', { flow: 'create item', step: 1 }],
      ['expect status 201', { flow: 'create item', step: 2 }],
      ['GET /api/items/N', null],
      ['expect $.price = 12.5', null],
    ]);
  }, 90_000);

  it('a flow in use is not deleted or renamed, nor changed so its tests break (409 naming them)', async () => {
    const del = await api.delete(`/api/flows/${flowId}`);
    expect(del.status).toBe(409);
    expect(del.body.error.message).toBe('flow "create item" cannot be deleted: it is used by test "item reads back"');
    expect(del.body.error.details).toEqual({ used_by: ['test "item reads back"'], count: 1 });
    const rename = await api.patch(`/api/flows/${flowId}`, { name: 'make item' });
    expect(rename.status).toBe(409);
    expect(rename.body.error.message).toMatch(/cannot be renamed: it is used by test "item reads back"/);
    const breaking = await api.patch(`/api/flows/${flowId}`, { parameters: [{ name: 'name' }, { name: 'price' }, { name: 'colour' }] });
    expect(breaking.status).toBe(409);
    expect(breaking.body.error.details.used_by).toEqual(['test "item reads back"']);
    const fine = await api.patch(`/api/flows/${flowId}`, { description: 'creates an item through the API' });
    expect(fine.status).toBe(200);
    expect(fine.body.description).toBe('creates an item through the API');
    expect((await viewer.get(`/api/flows?project_id=${projectId}`)).body.items.map((f: { name: string; used_by_tests: number }) => [f.name, f.used_by_tests])).toEqual([['create item', 1]]);
  });

  it('a flow gone since the test was saved fails the run, naming the step', async () => {
    // Removed under the API (as a restore of an old table could): the run must say so, not run "use".
    await server.runtime.deps.store.flows.delete(orgId, flowId);
    const started = await api.post('/api/v1/test/run', { project_id: projectId, test_ids: [testId], healing_enabled: false });
    const run = await finished(started.body.run.id);
    const results = (await api.get(`/api/v1/tests/${run.id}/results`)).body.items;
    expect(results[0].status).toBe('failed');
    expect(results[0].error_message).toBe('the test\'s flows cannot be used: steps.0.flow: unknown flow "CREATE ITEM" (no flows are known: on a server, the project has none; for svc run, give --flows or put the *.flow.json files in the --tests folder)');
  }, 90_000);

  it('restoring a revision whose flow is gone is a 409 naming the step; the test stays as it is', async () => {
    // Revision 1 used the flow deleted above; revision 2 stops using it.
    const edited = await api.patch(`/api/tests/${testId}`, { steps: [{ type: 'request', method: 'GET', url: '/api/items' }] });
    expect(edited.status, edited.text).toBe(200);
    const restore = await api.post(`/api/tests/${testId}/revisions/1/restore`, {});
    expect(restore.status).toBe(409);
    expect(restore.body.error.message).toBe('revision 1 cannot be restored: steps.0.flow: unknown flow "CREATE ITEM" (no flows are known: on a server, the project has none; for svc run, give --flows or put the *.flow.json files in the --tests folder)');
    expect(restore.body.error.details.issues).toEqual([{ path: 'steps.0.flow', message: 'unknown flow "CREATE ITEM" (no flows are known: on a server, the project has none; for svc run, give --flows or put the *.flow.json files in the --tests folder)' }]);
    expect((await api.get(`/api/tests/${testId}`)).body).toMatchObject({ revision: edited.body.revision, steps: [{ type: 'request', url: '/api/items' }] });
    // Nothing uses it now: the test can go, and the test's id is 404 for the flows routes as ever.
    expect((await api.delete(`/api/tests/${testId}`)).status).toBe(204);
  });
});
