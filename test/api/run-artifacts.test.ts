/**
 * A run's artifacts over real HTTP on the local runtime: a UI test that fails in Chromium
 * leaves a Playwright trace and screenshots in the blob store; GET /api/runs/{id}/artifacts
 * lists what its results name and each one downloads — the trace as a real zip with the
 * trace inside, the screenshot as a PNG. Another organization sees 404s; a name the run
 * does not own is a 404, a malformed one a 400 naming the field. With a retention set, the
 * runtime's housekeeping deletes artifacts past it: the list then says so and the download
 * is a 404 that says why, while the run's results stay.
 */
import { utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, signUp, type Client } from '../support/server.ts';
import { openSse } from '../run-graph/support/sse-client.ts';
import { startRunGraphServer } from '../run-graph/support/api-server.ts';
import { apiTest, startTarget, type Target } from '../run-graph/support/target.ts';
import type { FsBlobs } from '../../packages/functions/src/local/fs-blobs.ts';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

const DAY = 24 * 3600_000;

let server: Awaited<ReturnType<typeof startRunGraphServer>>;
let target: Target;
let api: Client;
let user: Awaited<ReturnType<typeof signUp>>;
let stranger: Awaited<ReturnType<typeof signUp>>;
let runId: string;
let threadId: string;
let failingTestId: string;

type Artifact = { name: string; kind: string; test_id: string; test_name: string; content_type: string; available: boolean; url: string };

beforeAll(async () => {
  target = await startTarget();
  // Housekeeping every 300 ms, artifacts kept 7 days: nothing this run writes is old yet.
  server = await startRunGraphServer({ env: { SVC_HOUSEKEEPING_INTERVAL_MS: '300', SVC_RUN_ARTIFACT_RETENTION_DAYS: '7' } });
  user = await signUp(server.url, 'artifacts@example.com');
  stranger = await signUp(server.url, 'artifact-stranger@example.com');
  api = client(server.url, { token: user.token, org: user.orgId });
  const projectId = (await api.post('/api/v1/projects', { name: 'shop', app_url: target.url })).body.id;
  const failing = await api.post('/api/tests', {
    project_id: projectId, name: 'thanks are shown', type: 'ui',
    steps: [{ type: 'goto', url: '/page' }, { type: 'screenshot', label: 'before' }],
    assertions: [{ type: 'visible', selector: '#done' }],
  });
  expect(failing.status, failing.text).toBe(201);
  failingTestId = failing.body.id;
  const passing = await api.post('/api/tests', { project_id: projectId, ...apiTest('orders answer', '/ok'), description: undefined });
  const started = await api.post('/api/v1/test/run', { project_id: projectId, test_ids: [failingTestId, passing.body.id] });
  expect(started.status, started.text).toBe(201);
  runId = started.body.run.id;
  threadId = started.body.thread_id;
  const deadline = Date.now() + 90_000;
  while ((await api.get(`/api/v1/test/status/${runId}`)).body.run.status !== 'completed') {
    if (Date.now() > deadline) throw new Error('the run did not complete');
    await new Promise((r) => setTimeout(r, 100));
  }
});
afterAll(async () => {
  await server?.stop();
  await target?.stop();
});

async function download(path: string, as = user) {
  const res = await fetch(server.url + path, { headers: { authorization: `Bearer ${as.token}`, 'x-organization-id': as.orgId } });
  return { status: res.status, headers: res.headers, bytes: new Uint8Array(await res.arrayBuffer()) };
}

const listed = async (): Promise<Artifact[]> => {
  const res = await api.get(`/api/runs/${runId}/artifacts`);
  expect(res.status, res.text).toBe(200);
  return res.body.items;
};

describe('run artifacts', () => {
  it("lists the failed UI test's trace and screenshots, each stored, with its download URL", async () => {
    const items = await listed();
    const trace = items.find((a) => a.kind === 'trace')!;
    expect(trace).toMatchObject({ name: expect.stringMatching(/\/trace\.zip$/), test_id: failingTestId, test_name: 'thanks are shown', content_type: 'application/zip', available: true });
    expect(trace.url).toBe(`/api/runs/${runId}/artifacts/${trace.name}`);
    const shots = items.filter((a) => a.kind === 'screenshot');
    expect(shots.map((s) => s.name.split('/')[1]).sort()).toEqual(['failure.png', 'step-1.png']);
    expect(shots.every((s) => s.content_type === 'image/png' && s.available)).toBe(true);
    // The passing API test has none.
    expect(new Set(items.map((a) => a.test_id))).toEqual(new Set([failingTestId]));
    // The versioned family and the thread id answer the same.
    expect((await api.get(`/api/v1/runs/${threadId}/artifacts`)).body.items.map((a: Artifact) => a.name)).toEqual(items.map((a) => a.name));
  });

  it("downloads the trace: a zip Playwright's trace viewer opens (its trace and network logs inside)", async () => {
    const trace = (await listed()).find((a) => a.kind === 'trace')!;
    const res = await download(trace.url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/zip');
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="${trace.name.replace('/', '-')}"`);
    expect(Buffer.from(res.bytes.subarray(0, 4)).toString('latin1')).toBe('PK\u0003\u0004');
    const names = Buffer.from(res.bytes).toString('latin1');
    expect(names).toContain('trace.trace');
    expect(names).toContain('trace.network');
    // The bytes are the stored ones.
    const stored = await server.runtime.blobs!.get(`runs/${threadId}/${trace.name}`);
    expect(Buffer.from(res.bytes).equals(Buffer.from(stored!.body))).toBe(true);
  });

  it('downloads a screenshot as a PNG shown inline', async () => {
    const shot = (await listed()).find((a) => a.name.endsWith('/failure.png'))!;
    const res = await download(`/api/v1/runs/${runId}/artifacts/${shot.name}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(res.headers.get('content-disposition')).toMatch(/^inline; /);
    expect([...res.bytes.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  });

  it('downloads the HTML of the page the test failed on, as a file (never rendered on this origin)', async () => {
    const dom = (await listed()).find((a) => a.kind === 'dom_snapshot')!;
    expect(dom).toMatchObject({ name: `${failingTestId}/failure.html`, test_id: failingTestId, content_type: 'application/octet-stream', available: true });
    const res = await download(dom.url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/octet-stream');
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="${failingTestId}-failure.html"`);
    const html = Buffer.from(res.bytes).toString('utf8');
    // The target's page as the browser had it: the button the test could not find the thanks of.
    expect(html).toMatch(/^<!DOCTYPE html>/i);
    expect(html).toContain('id="buy-now"');

    // The run's stream carried it live too: dom_snapshot, with the failed step (the assertion, after the two steps) and the artifact's name.
    const stream = await openSse(`${server.url}/stream/${threadId}`, { headers: { authorization: `Bearer ${user.token}`, 'x-organization-id': user.orgId } });
    const event = await stream.waitFor((e) => e.event === 'dom_snapshot');
    stream.close();
    expect(event.data).toMatchObject({ test_id: failingTestId, url: `${target.url}/page`, step: 2, artifact: `${failingTestId}/failure.html`, truncated: false, chars: html.length });
    expect(event.data.html).toBe(html);
  });

  it("is a 404 for another organization, for a run's name it does not own, and a 400 naming a malformed segment", async () => {
    const trace = (await listed()).find((a) => a.kind === 'trace')!;
    const other = client(server.url, { token: stranger.token, org: stranger.orgId });
    expect((await other.get(`/api/runs/${runId}/artifacts`)).status).toBe(404);
    const theirs = await download(trace.url, stranger);
    expect(theirs.status).toBe(404);
    expect(Buffer.from(theirs.bytes).toString()).not.toContain('PK');

    const unknown = await api.get(`/api/runs/${runId}/artifacts/${failingTestId}/secrets.zip`);
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.message).toContain(`GET /api/runs/${runId}/artifacts lists them`);
    const bad = await api.get(`/api/runs/${runId}/artifacts/${failingTestId}/a%20b.png`);
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body.error.details)).toContain('file');
    expect((await api.get(`/api/runs/0193aaaa-0000-7000-8000-000000000000/artifacts`)).status).toBe(404);
  });

  it('svc_run_artifacts lists them to an AI assistant through the MCP gateway (the SDK\'s client)', async () => {
    const mcp = new McpClient({ name: 'artifacts-test', version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${user.token}`, 'x-organization-id': user.orgId } } }));
    try {
      const result = (await mcp.callTool({ name: 'svc_run_artifacts', arguments: { id: runId } })) as CallToolResult;
      expect(result.isError ?? false).toBe(false);
      const body = result.structuredContent as { run_id: string; items: Artifact[] };
      expect(body.run_id).toBe(runId);
      expect(body.items.map((a) => a.kind).sort()).toEqual(['dom_snapshot', 'screenshot', 'screenshot', 'trace']);
      const other = (await mcp.callTool({ name: 'svc_run_artifacts', arguments: { id: 'no-such-run' } })) as CallToolResult;
      expect(other.isError).toBe(true);
    } finally {
      await mcp.close();
    }
  });

  it('with a retention set, housekeeping deletes what is older: listed as unavailable, a 404 that says why, results kept', async () => {
    const blobs = server.runtime.blobs as FsBlobs;
    const trace = (await listed()).find((a) => a.kind === 'trace')!;
    const when = new Date(Date.now() - 8 * DAY);
    await utimes(join(blobs.root, 'runs', threadId, ...trace.name.split('/')), when, when);
    const deadline = Date.now() + 15_000;
    while ((await blobs.get(`runs/${threadId}/${trace.name}`)) !== undefined) {
      if (Date.now() > deadline) throw new Error('housekeeping did not delete the old trace');
      await new Promise((r) => setTimeout(r, 100));
    }
    const items = await listed();
    expect(items.find((a) => a.kind === 'trace')!.available).toBe(false);
    expect(items.filter((a) => a.kind === 'screenshot').every((s) => s.available)).toBe(true);
    const gone = await api.get(trace.url);
    expect(gone.status).toBe(404);
    expect(gone.body.error.message).toMatch(/no longer stored .*SVC_RUN_ARTIFACT_RETENTION_DAYS/);
    const results = (await api.get(`/api/v1/tests/${runId}/results`)).body.items as Array<{ test_id: string; status: string }>;
    expect(results.find((r) => r.test_id === failingTestId)!.status).toBe('failed');
  });
});
