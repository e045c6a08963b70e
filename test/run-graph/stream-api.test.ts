/**
 * Live streaming over real HTTP: ids on every event, replay with Last-Event-ID, keep-alive
 * comments, streams that end before their limit and resume, cancel, status, and clients
 * that never read.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, signUp, type Client } from '../support/server.ts';
import { startRunGraphServer } from './support/api-server.ts';
import { openSse } from './support/sse-client.ts';
import { apiTest, startTarget, type Target } from './support/target.ts';

let server: Awaited<ReturnType<typeof startRunGraphServer>>;
let short: Awaited<ReturnType<typeof startRunGraphServer>>;
let target: Target;
let token: string;
let orgId: string;
let api: Client;
let projectId: string;

const auth = () => ({ authorization: `Bearer ${token}`, 'x-organization-id': orgId, 'content-type': 'application/json' });

beforeAll(async () => {
  target = await startTarget();
  server = await startRunGraphServer({ stream: { keepAliveMs: 200, writeTimeoutMs: 1_000, pollMs: 200 } });
  const user = await signUp(server.url, 'stream@example.com');
  token = user.token;
  orgId = user.orgId;
  api = client(server.url, { token, org: orgId });
  projectId = (await api.post('/api/v1/projects', { name: 'shop', app_url: target.url })).body.id;
});
afterAll(async () => {
  target?.openGate();
  await server?.stop();
  await short?.stop();
  await target?.stop();
});

/** node_start events with no node_end after them (per node and test), in order. */
function openNodes(events: Array<{ event: string; data: any }>) {
  const open: Array<{ node: string; test_id: string | null }> = [];
  for (const e of events) {
    const key = { node: e.data?.node, test_id: e.data?.test_id ?? null };
    if (e.event === 'node_start') open.push(key);
    if (e.event === 'node_end') {
      const i = open.findLastIndex((o) => o.node === key.node && o.test_id === key.test_id);
      expect(i, `node_end of ${key.node} ${key.test_id} without a node_start`).toBeGreaterThanOrEqual(0);
      open.splice(i, 1);
    }
  }
  return open;
}

async function tests(c: Client, project: string, paths: string[]) {
  const ids: string[] = [];
  for (const p of paths) ids.push((await c.post('/api/tests', { project_id: project, ...apiTest(p, p), description: undefined })).body.id);
  return ids;
}

describe('SSE', () => {
  it('POST /api/v1/stream/test starts a run and streams every node with ids 1, 2, 3 … until complete', async () => {
    const ids = await tests(api, projectId, ['/ok?id=s1', '/fail?id=s2']);
    const s = await openSse(`${server.url}/api/v1/stream/test`, { method: 'POST', headers: auth(), body: JSON.stringify({ project_id: projectId, test_ids: ids }) });
    expect(s.res.status).toBe(200);
    expect(s.res.headers.get('content-type')).toMatch(/text\/event-stream/);
    const threadId = s.res.headers.get('x-thread-id')!;
    expect(threadId).toBeTruthy();
    await s.done; // the stream ends by itself once the run has finished
    expect(s.retry).toBe(1000);
    expect(s.events.map((e) => Number(e.id))).toEqual(s.events.map((_, i) => i + 1));
    expect(s.events[0].event).toBe('state_update');
    const kinds = new Set(s.events.map((e) => e.event));
    for (const k of ['state_update', 'node_start', 'node_end', 'log', 'tool_call', 'complete']) expect(kinds, k).toContain(k);
    expect(s.events.at(-1)).toMatchObject({ event: 'complete', data: { summary: { status: 'completed', total: 2, passed: 1, failed: 1 } } });
    const start = s.events.find((e) => e.event === 'node_start')!;
    expect(start.data).toMatchObject({ node: 'analyze_code', timestamp: expect.any(String) });
    const end = s.events.find((e) => e.event === 'node_end')!;
    expect(end.data).toMatchObject({ node: 'analyze_code', duration_ms: expect.any(Number) });
    expect(s.events.find((e) => e.event === 'state_update' && e.data.state.graph.routes.report)?.data.state).toMatchObject({ passed_count: 1, failed_count: 1 });

    // Reconnecting with Last-Event-ID replays exactly what came after it.
    const k = 5;
    const again = await openSse(`${server.url}/stream/${threadId}`, { headers: { authorization: `Bearer ${token}`, 'last-event-id': String(k) } });
    await again.done;
    expect(again.events.map((e) => Number(e.id))).toEqual(s.events.slice(k).map((e) => Number(e.id)));
    expect(again.events.map((e) => e.event)).toEqual(s.events.slice(k).map((e) => e.event));
    // The spec's gateway family answers the same stream.
    const viaApi = await openSse(`${server.url}/api/stream/${threadId}`, { headers: { authorization: `Bearer ${token}`, 'last-event-id': String(k) } });
    await viaApi.done;
    expect(viaApi.events.map((e) => [e.id, e.event])).toEqual(again.events.map((e) => [e.id, e.event]));
  });

  it('a client that drops mid-run and comes back with Last-Event-ID misses nothing and gets nothing twice; keep-alives flow while idle', async () => {
    const ids = await tests(api, projectId, ['/gate?id=g1', '/ok?id=g2']);
    target.closeGate();
    const s = await openSse(`${server.url}/api/v1/stream/test`, { method: 'POST', headers: auth(), body: JSON.stringify({ project_id: projectId, test_ids: ids, max_concurrency: 1 }) });
    const threadId = s.res.headers.get('x-thread-id')!;
    await s.waitFor((e) => e.event === 'node_start' && e.data.node === 'execute_test');
    await new Promise((r) => setTimeout(r, 500)); // idle: the gated test holds the run
    expect(s.comments).toContain('keep-alive');
    const seen = Number(s.events.at(-1)!.id);
    s.close();
    target.openGate();
    await new Promise((r) => setTimeout(r, 300));
    const rest = await openSse(`${server.url}/stream/${threadId}`, { headers: { authorization: `Bearer ${token}`, 'last-event-id': String(seen) } });
    await rest.done;
    const all = [...s.events.map((e) => Number(e.id)), ...rest.events.map((e) => Number(e.id))];
    expect(all).toEqual(all.map((_, i) => i + 1));
    expect(rest.events.at(-1)!.event).toBe('complete');
    // Reconnecting after the complete event (as an EventSource does when the stream closes): 204, which
    // stops it; a 200 that closed at once had it reconnect forever (noted by QA). From the start, the log replays.
    const last = rest.events.at(-1)!.id;
    const again = await fetch(`${server.url}/stream/${threadId}`, { headers: { authorization: `Bearer ${token}`, 'last-event-id': String(last) } });
    expect(again.status).toBe(204);
    expect(await again.text()).toBe('');
    const replay = await openSse(`${server.url}/stream/${threadId}`, { headers: { authorization: `Bearer ${token}` } });
    await replay.done;
    expect(replay.res.status).toBe(200);
    expect(replay.events.map((e) => Number(e.id))).toEqual(all);
  });

  it('a stream ends before its limit and the client resumes it with POST /api/v1/stream/resume', async () => {
    short = await startRunGraphServer({ stream: { maxStreamMs: 400, pollMs: 100 } });
    const u = await signUp(short.url, 'short@example.com');
    const c = client(short.url, { token: u.token, org: u.orgId });
    const project = (await c.post('/api/v1/projects', { name: 'p', app_url: target.url })).body.id;
    const ids = await tests(c, project, ['/slow?ms=700&id=l1', '/slow?ms=700&id=l2']);
    const headers = { authorization: `Bearer ${u.token}`, 'x-organization-id': u.orgId, 'content-type': 'application/json' };
    const first = await openSse(`${short.url}/api/v1/stream/test`, { method: 'POST', headers, body: JSON.stringify({ project_id: project, test_ids: ids, max_concurrency: 1 }) });
    const threadId = first.res.headers.get('x-thread-id')!;
    await first.done;
    expect(first.events.some((e) => e.event === 'complete')).toBe(false); // ended by the stream limit, not by the run
    const received = [...first.events];
    for (let i = 0; i < 20 && !received.some((e) => e.event === 'complete'); i++) {
      const next = await openSse(`${short.url}/api/v1/stream/resume/${threadId}`, { method: 'POST', headers: { ...headers, 'last-event-id': received.at(-1)!.id! }, body: '{}' });
      expect(next.res.status).toBe(200);
      await next.done;
      received.push(...next.events);
    }
    expect(received.map((e) => Number(e.id))).toEqual(received.map((_, i) => i + 1));
    expect(received.at(-1)).toMatchObject({ event: 'complete', data: { summary: { status: 'completed', passed: 2 } } });
  });

  it('status reports the stream; DELETE /api/v1/stream/cancel ends the run and its streams', async () => {
    const ids = await tests(api, projectId, ['/gate?id=x1']);
    target.closeGate();
    const s = await openSse(`${server.url}/api/v1/stream/test`, { method: 'POST', headers: auth(), body: JSON.stringify({ project_id: projectId, test_ids: ids }) });
    const threadId = s.res.headers.get('x-thread-id')!;
    await s.waitFor((e) => e.event === 'node_start' && e.data.node === 'execute_test');
    const status = await api.get(`/api/v1/stream/status/${threadId}`);
    expect(status.status).toBe(200);
    expect(status.body).toMatchObject({ thread_id: threadId, active: true, run: { status: 'running' }, stream: { clients: 1 } });
    expect(status.body.stream.last_event_id).toBeGreaterThan(3);
    const cancel = await api.delete(`/api/v1/stream/cancel/${threadId}`);
    expect(cancel.status).toBe(200);
    expect(cancel.body.status).toBe('cancelled');
    await s.done;
    expect(s.events.at(-1)).toMatchObject({ event: 'complete', data: { summary: { status: 'cancelled', total: 1, skipped: 1 } } });
    // The test the cancel cut short ends, before complete: a client pairing starts and ends keeps nothing running (found by QA).
    expect(openNodes(s.events)).toEqual([]);
    const ended = s.events.filter((e) => e.event === 'node_end' && e.data.node === 'execute_test');
    expect(ended).toEqual([expect.objectContaining({ data: expect.objectContaining({ test_id: ids[0], status: 'cancelled', duration_ms: expect.any(Number), timestamp: expect.any(String) }) })]);
    // Nodes that finished say nothing of a status.
    expect(s.events.filter((e) => e.event === 'node_end' && e.data.node !== 'execute_test').every((e) => !('status' in e.data))).toBe(true);
    target.openGate();
  });

  it('bad input: malformed Last-Event-ID → 400; unknown or foreign thread → 404', async () => {
    const ids = await tests(api, projectId, ['/ok?id=b1']);
    const run = (await api.post('/api/v1/test/run', { project_id: projectId, test_ids: ids })).body;
    const bad = await fetch(`${server.url}/stream/${run.thread_id}`, { headers: { authorization: `Bearer ${token}`, 'last-event-id': 'abc' } });
    expect(bad.status).toBe(400);
    expect((await bad.json()).error.code).toBe('VALIDATION_FAILED');
    expect((await fetch(`${server.url}/stream/nope`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(404);
    const stranger = await signUp(server.url, 'stranger-stream@example.com');
    const foreign = await fetch(`${server.url}/stream/${run.thread_id}`, { headers: { authorization: `Bearer ${stranger.token}` } });
    expect(foreign.status).toBe(404);
    const resume = await fetch(`${server.url}/api/v1/stream/resume/${run.thread_id}`, { method: 'POST', headers: { authorization: `Bearer ${stranger.token}`, 'x-organization-id': stranger.orgId, 'content-type': 'application/json' }, body: '{}' });
    expect(resume.status).toBe(404);
    expect((await client(server.url, { token: stranger.token, org: stranger.orgId }).get(`/api/v1/stream/status/${run.thread_id}`)).status).toBe(404);
  });

  it("GET /stream/{id} takes the run's id too, as the status route does, for a run on a named thread; another organization's is a 404 (found by QA)", async () => {
    const ids = await tests(api, projectId, ['/ok?id=rid1']);
    const run = (await api.post('/api/v1/test/run', { project_id: projectId, test_ids: ids, thread_id: 'stream-by-run-id' })).body;
    expect(run.thread_id).not.toBe(run.run.id);
    expect((await api.get(`/api/v1/stream/status/${run.run.id}`)).status).toBe(200);
    const byRun = await openSse(`${server.url}/stream/${run.run.id}`, { headers: { authorization: `Bearer ${token}`, 'x-organization-id': orgId } });
    await byRun.done;
    expect(byRun.res.status).toBe(200);
    expect(byRun.events.map((e) => e.id)).toEqual(byRun.events.map((_, i) => String(i + 1)));
    expect(byRun.events.at(-1)?.event).toBe('complete');
    const stranger = await signUp(server.url, 'stranger-run-id@example.com');
    const foreign = await fetch(`${server.url}/api/stream/${run.run.id}`, { headers: { authorization: `Bearer ${stranger.token}`, 'x-organization-id': stranger.orgId } });
    expect(foreign.status).toBe(404);
  });

  it('a client that never reads is dropped after the write timeout; nothing piles up for it', async () => {
    const ids = await tests(api, projectId, ['/gate?id=n1']);
    target.closeGate();
    const run = (await api.post('/api/v1/test/run', { project_id: projectId, test_ids: ids })).body;
    const threadId = run.thread_id as string;
    const port = Number(new URL(server.url).port);
    const socket = connect(port, '127.0.0.1');
    socket.pause(); // never read
    let closed = false;
    socket.on('close', () => (closed = true));
    socket.on('error', () => (closed = true));
    await new Promise<void>((r) => socket.once('connect', () => r()));
    socket.write(`GET /stream/${threadId} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\n\r\n`);
    const log = server.graph.events;
    for (let i = 0; i < 50 && log.watcherCount(threadId) === 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(log.watcherCount(threadId)).toBe(1);
    // A chatty run: 30 MB of events, far more than the socket buffers hold.
    const chunk = 'x'.repeat(30_000);
    for (let i = 0; i < 1000; i++) await log.append(threadId, { type: 'log', data: { level: 'debug', message: chunk } });
    const deadline = Date.now() + 10_000;
    while (log.watcherCount(threadId) > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(log.watcherCount(threadId)).toBe(0);
    // The server closed the connection: once the client reads again it sees the end.
    socket.on('data', () => {});
    socket.resume();
    for (let i = 0; i < 100 && !closed; i++) await new Promise((r) => setTimeout(r, 50));
    expect(closed).toBe(true);
    socket.destroy();
    // The server keeps serving everyone else.
    expect((await api.get(`/api/v1/stream/status/${threadId}`)).status).toBe(200);
    target.openGate();
    await api.post(`/api/v1/test/cancel/${run.run.id}`);
  });
});
