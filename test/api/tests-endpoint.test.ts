import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { EventEnvelopeSchema, TestCreatedPayload, type EventEnvelope } from '@svc/core/contracts/events';
import { startTestServer, client, signUp, type TestServer, type Client } from '../support/server.ts';

let server: TestServer;
let member: Client;
let orgId: string;
let projectId: string;

beforeAll(async () => {
  server = await startTestServer();
  const user = await signUp(server.url, 'tests@example.com');
  orgId = user.orgId;
  member = client(server.url, { token: user.token, org: orgId });
  projectId = (await member.post('/api/v1/projects', { name: 'shop', app_url: 'http://127.0.0.1:3000' })).body.id;
});
afterAll(async () => server?.stop());

describe('/api/tests', () => {
  it('creates a test: 201, stored, and a schema-valid test.created event', async () => {
    const events: EventEnvelope[] = [];
    const off = server.runtime.bus.subscribe((e) => void events.push(e));
    const body = {
      project_id: projectId,
      name: 'checkout works',
      type: 'ui',
      steps: [{ type: 'goto', url: '/' }, { type: 'click', selector: '#buy' }],
      assertions: [{ type: 'visible', selector: '#thanks' }],
      tags: ['smoke'],
    };
    const res = await member.post('/api/tests', body);
    off();
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ name: 'checkout works', type: 'ui', status: 'pending', priority: 'medium', tags: ['smoke'] });

    expect(events).toHaveLength(1);
    const event = EventEnvelopeSchema.parse(events[0]);
    expect(event.event_type).toBe('test.created');
    expect(event.tenant_id).toBe(orgId);
    expect(event.metadata).toEqual({});
    expect(event.event_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const payload = TestCreatedPayload.parse(event.payload);
    expect(payload).toMatchObject({ test_id: res.body.id, test_name: 'checkout works', test_type: 'ui', project_id: projectId });
    expect(payload.test_spec).toMatchObject({ steps: body.steps, assertions: body.assertions });
    expect(event.correlation_id).toBe(res.headers.get('x-request-id'));

    const fetched = await member.get(`/api/tests/${res.body.id}`);
    expect(fetched.body).toEqual(res.body);
  });

  it('a test larger than an event can carry is created (201) once; its test.created event says so and the test is whole', async () => {
    const events: EventEnvelope[] = [];
    const off = server.runtime.bus.subscribe((e) => void events.push(e));
    // ~1 MB of steps: valid, far under the request limit, four times a bus entry's 256 KB.
    const steps = Array.from({ length: 499 }, (_, i) => ({ type: 'fill', selector: `#f${i}`, value: 'v'.repeat(2000) }));
    const res = await member.post('/api/tests', { project_id: projectId, name: 'a very large form', type: 'ui', steps });
    off();
    expect(res.status, res.text).toBe(201);
    expect(events).toHaveLength(1);
    const payload = TestCreatedPayload.parse(EventEnvelopeSchema.parse(events[0]).payload);
    expect(payload).toMatchObject({ test_id: res.body.id, test_name: 'a very large form' });
    expect(payload.test_spec).toMatchObject({ step_count: 499, assertion_count: 0, steps_omitted: expect.stringContaining('test_id') });
    expect(payload.test_spec.steps).toBeUndefined();
    expect((await member.get(`/api/tests/${res.body.id}`)).body.steps).toHaveLength(499);
    const named = await member.get(`/api/tests?project_id=${projectId}&limit=100`);
    expect(named.body.items.filter((t: { name: string }) => t.name === 'a very large form')).toHaveLength(1);
  });

  it('two visual assertions with one baseline (as files see names) are refused when saved, created or changed, naming the later one', async () => {
    const twice = await member.post('/api/tests', { project_id: projectId, name: 'one baseline twice', type: 'ui', assertions: [{ type: 'visual', baseline: 'x' }, { type: 'visual', baseline: 'x', selector: '#clock' }] });
    expect(twice.status, twice.text).toBe(400);
    expect(twice.body.error.details.issues).toEqual([{ path: 'assertions.1.baseline', message: 'baseline "x" is already used by another visual assertion of this test' }]);
    const sameFile = await member.post('/api/tests', { project_id: projectId, name: 'same file', type: 'ui', steps: [{ type: 'assert', assertion: { type: 'visual', baseline: 'a b' } }], assertions: [{ type: 'visual', baseline: 'a_b' }] });
    expect(sameFile.status).toBe(400);
    expect(sameFile.body.error.details.issues[0]).toMatchObject({ path: 'assertions.0.baseline', message: expect.stringContaining('are the same file') });
    const ok = await member.post('/api/tests', { project_id: projectId, name: 'one visual', type: 'ui', steps: [{ type: 'assert', assertion: { type: 'visual', baseline: 'home' } }] });
    expect(ok.status, ok.text).toBe(201);
    const patched = await member.patch(`/api/tests/${ok.body.id}`, { assertions: [{ type: 'visual', baseline: 'home' }] });
    expect(patched.status).toBe(400);
    expect(patched.body.error.details.issues[0].path).toBe('assertions.0.baseline');
    expect((await member.get(`/api/tests/${ok.body.id}`)).body.assertions).toEqual([]);
  });

  it('lists newest first, filters by project and type, and pages with a cursor', async () => {
    const other = (await member.post('/api/v1/projects', { name: 'other' })).body.id;
    for (let i = 0; i < 5; i++) await member.post('/api/tests', { project_id: other, name: `t${i}`, type: i % 2 ? 'api' : 'db' });
    const first = await member.get(`/api/tests?project_id=${other}&limit=3`);
    expect(first.body.items.map((t: { name: string }) => t.name)).toEqual(['t4', 't3', 't2']);
    expect(first.body.next_cursor).toBeTruthy();
    const second = await member.get(`/api/tests?project_id=${other}&limit=3&cursor=${encodeURIComponent(first.body.next_cursor)}`);
    expect(second.body.items.map((t: { name: string }) => t.name)).toEqual(['t1', 't0']);
    expect(second.body.next_cursor).toBeNull();
    const apiOnly = await member.get(`/api/tests?project_id=${other}&type=api`);
    expect(apiOnly.body.items.map((t: { name: string }) => t.name)).toEqual(['t3', 't1']);
    // The status filter takes either case, as the results filter does.
    expect((await member.get(`/api/tests?project_id=${other}&status=PENDING`)).body.items).toHaveLength(5);
    expect((await member.get(`/api/tests?project_id=${other}&status=passed`)).body.items).toHaveLength(0);
  });

  it('view=summary lists each test without its lists, counted; a bad view is refused naming it', async () => {
    const own = (await member.post('/api/v1/projects', { name: 'summaries' })).body.id;
    const full = (await member.post('/api/tests', {
      project_id: own, name: 'two steps', type: 'ui', tags: ['smoke'],
      steps: [{ type: 'goto', url: '/' }, { type: 'click', selector: '#buy' }],
      assertions: [{ type: 'visible', selector: '#thanks' }],
      parameters: { who: 'a' }, parameter_sets: [{ values: { who: 'b' } }, { values: { who: 'c' } }],
    })).body;
    const listed = await member.get(`/api/tests?project_id=${own}&view=summary`);
    expect(listed.status).toBe(200);
    const { steps: _s, assertions: _a, parameter_sets: _p, parameters: _v, ...rest } = full;
    expect(listed.body.items).toEqual([{ ...rest, step_count: 2, assertion_count: 1, parameter_set_count: 2 }]);
    expect((await member.get(`/api/tests?project_id=${own}`)).body.items).toEqual([full]);
    const bad = await member.get(`/api/tests?project_id=${own}&view=brief`);
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.issues.map((d: { path: string }) => d.path)).toEqual(['view']);
  });

  it('changes a test (PATCH): the fields given, lists whole, updated_at moves; the audit log says which fields', async () => {
    const created = (await member.post('/api/tests', { project_id: projectId, name: 'edit me', type: 'ui', steps: [{ type: 'goto', url: '/' }], tags: ['a', 'b'] })).body;
    await new Promise((r) => setTimeout(r, 5));
    const res = await member.patch(`/api/tests/${created.id}`, { steps: [{ type: 'goto', url: '/login' }, { type: 'click', selector: '#go' }], tags: ['c'], priority: 'high' });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ id: created.id, name: 'edit me', tags: ['c'], priority: 'high', project_id: projectId, created_at: created.created_at });
    expect(res.body.steps.map((s: { type: string }) => s.type)).toEqual(['goto', 'click']);
    expect(res.body.updated_at > created.updated_at).toBe(true);
    expect((await member.get(`/api/tests/${created.id}`)).body).toEqual(res.body);
    const audit = await member.get('/api/audit-logs');
    expect(audit.body.items.find((e: { action: string }) => e.action === 'test.update')).toMatchObject({ resource: `test:${created.id}`, metadata: { fields: ['priority', 'steps', 'tags'] } });
  });

  it('a bad change names the field and changes nothing', async () => {
    const created = (await member.post('/api/tests', { project_id: projectId, name: 'keep me', type: 'ui', steps: [{ type: 'goto', url: '/' }] })).body;
    const empty = await member.patch(`/api/tests/${created.id}`, {});
    expect(empty.status).toBe(400);
    const badStep = await member.patch(`/api/tests/${created.id}`, { steps: [{ type: 'teleport' }] });
    expect(badStep.status).toBe(400);
    expect(JSON.stringify(badStep.body.error.details)).toContain('steps.0');
    const unknown = await member.patch(`/api/tests/${created.id}`, { project_id: projectId });
    expect(unknown.status).toBe(400);
    expect(JSON.stringify(unknown.body.error.details)).toContain('project_id');
    expect((await member.get(`/api/tests/${created.id}`)).body).toEqual(created);
  });

  it('deletes a test (204), then it is gone; another organization can neither change nor delete one', async () => {
    const created = (await member.post('/api/tests', { project_id: projectId, name: 'delete me', type: 'api' })).body;
    const stranger = await signUp(server.url, 'tests-stranger@example.com');
    const them = client(server.url, { token: stranger.token, org: stranger.orgId });
    expect((await them.patch(`/api/tests/${created.id}`, { name: 'mine' })).status).toBe(404);
    expect((await them.delete(`/api/tests/${created.id}`)).status).toBe(404);
    expect((await member.get(`/api/tests/${created.id}`)).body.name).toBe('delete me');

    expect((await member.delete(`/api/tests/${created.id}`)).status).toBe(204);
    expect((await member.get(`/api/tests/${created.id}`)).status).toBe(404);
    expect((await member.delete(`/api/tests/${created.id}`)).status).toBe(404);
    expect((await member.patch(`/api/tests/${created.id}`, { name: 'x' })).status).toBe(404);
    const listed = await member.get(`/api/tests?project_id=${projectId}&limit=200`);
    expect(listed.body.items.map((t: { id: string }) => t.id)).not.toContain(created.id);
  });
});
