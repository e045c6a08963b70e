/**
 * The test runner's events (spec "Producers and consumers": test.executed and test.failed
 * come from the test runner) from real runs on the local runtime: every execution a run
 * finishes publishes test.executed, a failed one test.failed, each with ids derived from
 * the run, case, attempt and type. They reach the consumers the routing table names: three
 * tests failing the same way within the window make stream analytics publish a failure
 * cluster naming them, and the API consumer records the failures in the tenant's activity.
 */
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventEnvelope } from '../../packages/core/src/contracts/events.ts';
import { checkEvent } from '../../packages/core/src/events/validate.ts';
import { listActivity } from '../../packages/core/src/events/api-consumer.ts';
import { stableEventId } from '../../packages/core/src/run-graph/execution-events.ts';
import { client, signUp, type Client } from '../support/server.ts';
import { awayFromClusterWindowEdge } from '../support/cluster-window.ts';
import { startRunGraphServer } from '../run-graph/support/api-server.ts';
import { apiTest, startTarget, type Target } from '../run-graph/support/target.ts';

let server: Awaited<ReturnType<typeof startRunGraphServer>>;
let target: Target;
let api: Client;
let orgId: string;
let token: string;
let projectId: string;
const seen: EventEnvelope[] = [];

beforeAll(async () => {
  target = await startTarget();
  server = await startRunGraphServer();
  server.runtime.bus.subscribe((e) => void seen.push(e));
  const user = await signUp(server.url, 'runner-events@example.com');
  orgId = user.orgId;
  token = user.token;
  api = client(server.url, { token: user.token, org: orgId });
  projectId = (await api.post('/api/v1/projects', { name: 'shop', app_url: target.url })).body.id;
});
afterAll(async () => {
  await server?.stop();
  await target?.stop();
});

async function createTest(name: string, path: string): Promise<string> {
  const res = await api.post('/api/tests', { project_id: projectId, ...apiTest(name, path), description: undefined });
  expect(res.status).toBe(201);
  return res.body.id;
}

async function runToEnd(body: Record<string, unknown>): Promise<string> {
  const started = await api.post('/api/v1/test/run', { project_id: projectId, healing_enabled: false, ...body });
  expect(started.status, JSON.stringify(started.body)).toBe(201);
  const runId: string = started.body.run.id;
  await expect.poll(async () => (await api.get(`/api/v1/test/status/${runId}`)).body.run.status, { timeout: 30_000 }).toBe('completed');
  return runId;
}

const ofRun = (type: string, runId: string) => seen.filter((e) => e.event_type === type && e.payload.run_id === runId);

describe('the test runner publishes its executions', () => {
  it('test.executed for every execution, test.failed for each failure; three alike make a failure cluster, and the failures are in the activity', { timeout: 60_000 }, async () => {
    const failing = [await createTest('cart total', '/fail?id=e1'), await createTest('cart items', '/fail?id=e2'), await createTest('cart badge', '/fail?id=e3')];
    const passing = await createTest('home', '/ok?id=e4');
    await awayFromClusterWindowEdge();
    const runId = await runToEnd({ test_ids: [...failing, passing] });

    await expect.poll(() => ofRun('test.executed', runId).length).toBe(4);
    const executed = ofRun('test.executed', runId);
    for (const e of executed) {
      expect(() => checkEvent(e)).not.toThrow();
      expect(e).toMatchObject({ source: 'svc.test-runner', tenant_id: orgId, correlation_id: runId, event_id: stableEventId(runId, String(e.payload.test_id), 1, 'test.executed') });
    }
    const byTest = new Map(executed.map((e) => [e.payload.test_id, e.payload]));
    expect(byTest.get(passing)).toMatchObject({ status: 'passed', project_id: projectId, attempt: 1, duration_ms: expect.any(Number) });
    for (const id of failing) expect(byTest.get(id)).toMatchObject({ status: 'failed', error_message: expect.stringMatching(/500/) });

    const failed = ofRun('test.failed', runId);
    expect(failed.map((e) => e.payload.test_id).sort()).toEqual([...failing].sort());
    for (const e of failed) {
      expect(e.payload).toMatchObject({ project_id: projectId, attempt: 1, failure_details: { failure_type: 'assertion', error_message: expect.stringMatching(/500/), step_index: expect.any(Number) } });
      expect(e.event_id).toBe(stableEventId(runId, String(e.payload.test_id), 1, 'test.failed'));
    }

    // Stream analytics: the three failures share a signature, so a cluster names them.
    await expect.poll(() => seen.filter((e) => e.event_type === 'patterns.failure-cluster').length, { timeout: 15_000 }).toBe(1);
    const cluster = seen.find((e) => e.event_type === 'patterns.failure-cluster')!;
    expect(cluster.payload).toMatchObject({ project_id: projectId, failure_count: 3 });
    expect([...(cluster.payload.test_ids as string[])].sort()).toEqual([...failing].sort());
    // The API consumer: each failure (and the cluster) is in the tenant's activity.
    const table = server.runtime.deps.store.table;
    await expect.poll(async () => (await listActivity({ table }, orgId, 50)).filter((a) => a.event_type === 'test.failed').length, { timeout: 15_000 }).toBe(3);
    const activity = await listActivity({ table }, orgId, 50);
    expect(activity.find((a) => a.event_type === 'test.failed')).toMatchObject({ refs: { project_id: projectId, run_id: runId }, summary: expect.stringMatching(/^test failed: /) });
    expect(activity.some((a) => a.event_type === 'patterns.failure-cluster')).toBe(true);

    // Over the API: the project's clusters with the tests' names, and the activity.
    const clusters = await api.get(`/api/analytics/failure-clusters?project_id=${projectId}`);
    expect(clusters.status).toBe(200);
    expect(clusters.body).toMatchObject({ project_id: projectId, threshold: 3, window_minutes: 15 });
    expect(clusters.body.items).toHaveLength(1);
    expect(clusters.body.items[0]).toMatchObject({
      cluster_id: cluster.payload.cluster_id, failure_type: 'assertion', failure_count: 3,
      error_signature: expect.stringMatching(/^assertion: /), suggested_cause: 'the application behaviour changed for a shared flow',
    });
    expect(clusters.body.items[0].tests.map((t: { name: string }) => t.name).sort()).toEqual(['cart badge', 'cart items', 'cart total']);
    const feed = await api.get(`/api/activity?project_id=${projectId}&limit=10`);
    expect(feed.status).toBe(200);
    expect(feed.body.items.filter((a: { event_type: string }) => a.event_type === 'test.failed')).toHaveLength(3);
    expect((await api.get('/api/activity')).body.items.length).toBeGreaterThanOrEqual(feed.body.items.length);

    // And to an assistant, through the MCP SDK's own client.
    const agent = new McpClient({ name: 'svc-clusters-test', version: '1.0.0' });
    await agent.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}`, 'x-organization-id': orgId } } }));
    try {
      const answer = (await agent.callTool({ name: 'svc_failure_clusters', arguments: { project_id: projectId } })) as CallToolResult;
      expect(answer.isError).toBeFalsy();
      expect(answer.structuredContent).toMatchObject({ items: [{ cluster_id: cluster.payload.cluster_id, failure_count: 3 }] });
    } finally {
      await agent.close();
    }
  });

  it('bad input is named; another organization sees none of it', async () => {
    const bad = await api.get('/api/analytics/failure-clusters?project_id=nope&limit=0');
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.issues.map((i: { path: string }) => i.path).sort()).toEqual(['limit', 'project_id']);
    expect((await api.get('/api/analytics/failure-clusters')).body.error.details.issues.map((i: { path: string }) => i.path)).toEqual(['project_id']);
    expect((await api.get(`/api/analytics/failure-clusters?project_id=${crypto.randomUUID()}`)).status).toBe(404);

    const stranger = await signUp(server.url, 'runner-events-other@example.com');
    const other = client(server.url, { token: stranger.token, org: stranger.orgId });
    expect((await other.get(`/api/analytics/failure-clusters?project_id=${projectId}`)).status).toBe(404);
    expect((await other.get(`/api/activity?project_id=${projectId}`)).status).toBe(404);
    expect((await other.get('/api/activity')).body.items).toEqual([]);
  });

  it("the local runtime's /metrics reports the browser sessions in use (none after these API runs)", async () => {
    const text = await (await fetch(`${server.url}/metrics`)).text();
    expect(text).toMatch(/^browser_pool_active_sessions 0$/m);
  });

  it('a retried failure publishes each attempt under its own ids', async () => {
    const id = await createTest('checkout', '/fail?id=e5');
    const runId = await runToEnd({ test_ids: [id], retries: 1 });
    await expect.poll(() => ofRun('test.executed', runId).length).toBe(2);
    const attempts = ofRun('test.executed', runId).map((e) => [e.payload.attempt, e.event_id]);
    expect(attempts).toEqual([
      [1, stableEventId(runId, id, 1, 'test.executed')],
      [2, stableEventId(runId, id, 2, 'test.executed')],
    ]);
    expect(ofRun('test.failed', runId).map((e) => e.payload.attempt)).toEqual([1, 2]);
  });

  it('event ids are version-4 UUIDs, the same for the same execution and type only', () => {
    const a = stableEventId('r', 't', 1, 'test.failed');
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(stableEventId('r', 't', 1, 'test.failed')).toBe(a);
    expect(new Set([a, stableEventId('r', 't', 2, 'test.failed'), stableEventId('r', 't', 1, 'test.executed'), stableEventId('r', 'u', 1, 'test.failed'), stableEventId('s', 't', 1, 'test.failed')]).size).toBe(5);
  });
});
