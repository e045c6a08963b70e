/**
 * Server-side visual baselines end to end: the local runtime runs a UI test with a visual
 * assertion in Chromium against the fixture app, records its baseline in the store and the
 * blob folder, matches it, fails with a proposal when the page changes, and matches again
 * once the proposal is accepted through the API. Also the compare endpoint (inline PNGs
 * made with pngjs, stored baselines and screenshots), uploads, deletes, the MCP tools, and
 * another organization that can reach none of it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PNG } from 'pngjs';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { pngOf } from '@svc/core/visual/test-png';
import { screenshotHash } from '@svc/core/visual/compare';
import { client, signUp, type Client } from '../support/server.ts';
import { createApp } from '../../packages/functions/src/api/app.ts';
import { startRunGraphServer } from '../run-graph/support/api-server.ts';
import { startFixtureApp, type FixtureApp } from '../fixtures/app/server.ts';

let server: Awaited<ReturnType<typeof startRunGraphServer>>;
let fixture: FixtureApp;
let api: Client;
let stranger: Client;
let projectId: string;
let testId: string;
let strangerTestId: string;
let authHeaders: Record<string, string>;

/** The card (its box blue, or red when the project's BOX says so), captured as one element. */
const visualTest = { name: 'order card looks right', type: 'ui', steps: [{ type: 'goto', url: '/visual?box={{env.BOX}}' }], assertions: [{ type: 'visual', baseline: 'card', selector: '#card' }] };
const b64 = (png: Uint8Array) => Buffer.from(png).toString('base64');

beforeAll(async () => {
  fixture = await startFixtureApp();
  server = await startRunGraphServer();
  const owner = await signUp(server.url, 'visual@example.com');
  api = client(server.url, { token: owner.token, org: owner.orgId });
  authHeaders = { authorization: `Bearer ${owner.token}`, 'x-organization-id': owner.orgId };
  projectId = (await api.post('/api/v1/projects', { name: 'shop', app_url: fixture.url, config: { environment: { BOX: 'blue' } } })).body.id;
  const created = await api.post('/api/tests', { project_id: projectId, ...visualTest });
  expect(created.status, created.text).toBe(201);
  testId = created.body.id;
  const other = await signUp(server.url, 'other-visual@example.com');
  stranger = client(server.url, { token: other.token, org: other.orgId });
  const theirProject = (await stranger.post('/api/v1/projects', { name: 'theirs', app_url: fixture.url })).body.id;
  strangerTestId = (await stranger.post('/api/tests', { project_id: theirProject, name: 'theirs', type: 'ui' })).body.id;
});
afterAll(async () => {
  await server?.stop();
  await fixture?.close();
});

/** Runs the visual test once and returns its stored result. */
async function runOnce(settings: Record<string, unknown> = {}) {
  const started = await api.post('/api/v1/test/run', { project_id: projectId, test_ids: [testId], ...settings });
  expect(started.status, started.text).toBe(201);
  const runId = started.body.run.id;
  for (const deadline = Date.now() + 30_000; ; await new Promise((r) => setTimeout(r, 100))) {
    const status = await api.get(`/api/v1/test/status/${runId}`);
    if (['completed', 'failed', 'cancelled'].includes(status.body.run.status)) break;
    if (Date.now() > deadline) throw new Error(`run ${runId} still ${status.body.run.status}`);
  }
  const results = await api.get(`/api/v1/tests/${runId}/results`);
  expect(results.status).toBe(200);
  const result = results.body.items.find((r: { test_id: string }) => r.test_id === testId);
  return { ...result, run_id: runId } as { run_id: string; status: string; error_message: string | null; metadata: { visual?: Array<Record<string, any>> } };
}

const baselinesOfTest = async () => (await api.get(`/api/visual/baselines?test_id=${testId}`)).body.items as Array<Record<string, any>>;
const decoded = (bytes: ArrayBuffer) => PNG.sync.read(Buffer.from(bytes));

let baselineId: string;
let firstHash: string;
let proposedHash: string;

describe('baselines of server runs', () => {
  it('the first run records the baseline, the second matches it', async () => {
    const first = await runOnce();
    expect(first.status, first.error_message ?? '').toBe('passed');
    expect(first.metadata.visual).toEqual([expect.objectContaining({ name: 'card', status: 'created', baseline_hash: expect.stringMatching(/^[0-9a-f]{64}$/) })]);
    firstHash = first.metadata.visual![0].baseline_hash;

    const [baseline] = await baselinesOfTest();
    expect(baseline).toMatchObject({ test_id: testId, project_id: projectId, name: 'card', screenshot_hash: firstHash, metadata: { selector: '#card', width: expect.any(Number), height: expect.any(Number) } });
    expect(baseline).not.toHaveProperty('organization_id');
    baselineId = baseline.id;
    expect((await api.get(`/api/visual/baselines?project_id=${projectId}`)).body.items.map((b: { id: string }) => b.id)).toEqual([baselineId]);
    expect((await api.get(`/api/visual/baselines/${baselineId}`)).body).toEqual(baseline);

    const second = await runOnce();
    expect(second.status, second.error_message ?? '').toBe('passed');
    expect(second.metadata.visual).toEqual([expect.objectContaining({ name: 'card', status: 'matched', diff_pixels: 0, baseline_hash: firstHash })]);
  }, 30_000);

  it('a changed page fails with a proposal, whose image the API serves beside the baseline\'s', async () => {
    expect((await api.patch(`/api/v1/projects/${projectId}`, { config: { environment: { BOX: 'red' } } })).status).toBe(200);
    const changed = await runOnce();
    expect(changed.status).toBe('failed');
    const [outcome] = changed.metadata.visual!;
    expect(outcome).toMatchObject({ name: 'card', status: 'differs', diff_pixels: 1600, baseline_hash: firstHash, proposed_hash: expect.stringMatching(/^[0-9a-f]{64}$/) });
    proposedHash = outcome.proposed_hash;
    expect(proposedHash).not.toBe(firstHash);

    // The run's HTML report embeds the baseline, the screenshot and the diff (read from the run's artifacts).
    const html = await (await fetch(`${server.url}/api/reports/${changed.run_id}?format=html`, { headers: authHeaders })).text();
    for (const caption of ['Baseline', 'Actual', 'Difference']) expect(html).toMatch(new RegExp(`<img src="data:image/png;base64,[A-Za-z0-9+/=]+" alt="${caption}: runs/`));

    expect((await fetch(`${server.url}/api/visual/images/${proposedHash}`)).status).toBe(401); // images need credentials like everything else
    const proposed = await getImage(`/api/visual/images/${proposedHash}`);
    expect(proposed.headers.get('content-type')).toBe('image/png');
    const bytes = await proposed.arrayBuffer();
    expect(screenshotHash(new Uint8Array(bytes))).toBe(proposedHash);
    const { width, height } = decoded(bytes);
    const current = await getImage(`/api/visual/baselines/${baselineId}/image`);
    expect(screenshotHash(new Uint8Array(await current.arrayBuffer()))).toBe(firstHash);
    expect((await getImage(`/api/visual/images/${firstHash}`)).status).toBe(200);
    // The baseline is untouched by the failing run; the proposal has its size.
    const [baseline] = await baselinesOfTest();
    expect(baseline).toMatchObject({ id: baselineId, screenshot_hash: firstHash, metadata: { width, height } });
  }, 30_000);

  it('accepting the proposal makes it the baseline; the next run matches', async () => {
    const accepted = await api.post('/api/visual/baselines', { test_id: testId, name: 'card', screenshot_hash: proposedHash });
    expect(accepted.status, accepted.text).toBe(201);
    expect(accepted.body).toMatchObject({ id: baselineId, test_id: testId, project_id: projectId, name: 'card', screenshot_hash: proposedHash, metadata: { selector: '#card', accepted_by: expect.stringMatching(/^user:/), accepted_at: expect.any(String) } });
    expect((await getImage(`/api/visual/images/${proposedHash}`)).status).toBe(200); // still served, now as a baseline

    const next = await runOnce();
    expect(next.status, next.error_message ?? '').toBe('passed');
    expect(next.metadata.visual).toEqual([expect.objectContaining({ name: 'card', status: 'matched', baseline_hash: proposedHash })]);
    const audit = await api.get('/api/audit-logs?limit=50');
    expect(audit.body.items.find((l: { action: string }) => l.action === 'visual.baseline_accepted')).toMatchObject({ resource: `visual_baseline:${baselineId}` });
  }, 30_000);

  it('a deleted baseline is recorded again by the next run', async () => {
    expect((await api.delete(`/api/visual/baselines/${baselineId}`)).status).toBe(204);
    expect((await api.get(`/api/visual/baselines/${baselineId}`)).status).toBe(404);
    expect((await api.delete(`/api/visual/baselines/${baselineId}`)).status).toBe(404);
    expect(await baselinesOfTest()).toEqual([]);
    const next = await runOnce();
    expect(next.status, next.error_message ?? '').toBe('passed');
    expect(next.metadata.visual).toEqual([expect.objectContaining({ name: 'card', status: 'created', baseline_hash: proposedHash })]);
    const [again] = await baselinesOfTest();
    expect(again.id).not.toBe(baselineId);
    baselineId = again.id;
  }, 30_000);

  it('a run may ask for baseline mode none (a missing baseline fails, nothing is recorded) or all (a difference replaces it)', async () => {
    expect((await api.delete(`/api/visual/baselines/${baselineId}`)).status).toBe(204);
    const strict = await runOnce({ baseline_mode: 'none' });
    expect(strict.status).toBe('failed');
    expect(strict.metadata.visual).toEqual([expect.objectContaining({ name: 'card', status: 'missing', proposed_hash: expect.any(String) })]);
    expect(await baselinesOfTest()).toEqual([]);

    expect((await api.patch(`/api/v1/projects/${projectId}`, { config: { environment: { BOX: 'blue' } } })).status).toBe(200);
    expect((await runOnce()).metadata.visual![0].status).toBe('created');
    expect((await api.patch(`/api/v1/projects/${projectId}`, { config: { environment: { BOX: 'red' } } })).status).toBe(200);
    const replaced = await runOnce({ baseline_mode: 'all' });
    expect(replaced.status, replaced.error_message ?? '').toBe('passed');
    expect(replaced.metadata.visual).toEqual([expect.objectContaining({ name: 'card', status: 'updated', diff_pixels: 1600 })]);
    const [now] = await baselinesOfTest();
    expect(now.screenshot_hash).toBe(replaced.metadata.visual![0].baseline_hash);
    baselineId = now.id;

    const bad = await api.post('/api/v1/test/run', { project_id: projectId, test_ids: [testId], baseline_mode: 'sometimes' });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('baseline_mode');
  }, 60_000);
});

/** GET of an image route (a binary body) with the owner's credentials. */
const getImage = (path: string) => fetch(`${server.url}${path}`, { headers: authHeaders });

describe('uploads', () => {
  it('a PNG uploaded for a test becomes its baseline; a body that is not one is refused naming the field', async () => {
    const png = pngOf(20, 10, [0, 102, 204]);
    const up = await api.post('/api/visual/baselines', { test_id: testId, name: 'uploaded', image: b64(png) });
    expect(up.status, up.text).toBe(201);
    expect(up.body).toMatchObject({ name: 'uploaded', screenshot_hash: screenshotHash(png), metadata: { width: 20, height: 10 } });
    const image = await getImage(`/api/visual/baselines/${up.body.id}/image`);
    expect(Buffer.compare(Buffer.from(await image.arrayBuffer()), png)).toBe(0);

    const notPng = await api.post('/api/visual/baselines', { test_id: testId, name: 'uploaded', image: b64(new TextEncoder().encode('plain text, not an image')) });
    expect(notPng.status).toBe(400);
    expect(notPng.body.error.details.issues).toEqual([{ path: 'image', message: 'not a PNG image (no PNG signature and IHDR header)' }]);
    const truncated = await api.post('/api/visual/baselines', { test_id: testId, name: 'uploaded', image: b64(png.slice(0, 40)) });
    expect(truncated.status).toBe(400);
    expect(truncated.body.error.details.issues[0].path).toBe('image');
    const both = await api.post('/api/visual/baselines', { test_id: testId, name: 'uploaded', image: b64(png), screenshot_hash: screenshotHash(png) });
    expect(both.body.error.details.issues).toEqual([{ path: 'screenshot_hash', message: 'give screenshot_hash or image, exactly one' }]);
    const badName = await api.post('/api/visual/baselines', { test_id: testId, name: '../etc', image: b64(png) });
    expect(badName.body.error.details.issues[0].path).toBe('name');
    const unknownHash = await api.post('/api/visual/baselines', { test_id: testId, name: 'x', screenshot_hash: 'f'.repeat(64) });
    expect(unknownHash.status).toBe(404);
    expect(unknownHash.body.error.message).toContain(`screenshot_hash: no screenshot ${'f'.repeat(64)}`);
    expect((await api.post('/api/visual/baselines', { test_id: strangerTestId, name: 'x', image: b64(png) })).status).toBe(404);
    // Only the uploaded baseline was added.
    expect((await baselinesOfTest()).map((b) => b.name)).toEqual(['card', 'uploaded']);
  });
});

describe('POST /api/visual/compare', () => {
  const blue = pngOf(20, 10, [0, 102, 204]);
  const patched = pngOf(20, 10, [0, 102, 204], { x: 2, y: 2, w: 3, h: 2, rgb: [221, 0, 0] });

  it('counts differing pixels between two inline PNGs, with the diff image', async () => {
    for (const path of ['/api/visual/compare', '/api/v1/visual/compare']) {
      const res = await api.post(path, { baseline: b64(blue), actual: b64(patched) });
      expect(res.status, res.text).toBe(200);
      expect(res.body).toMatchObject({ match: false, width: 20, height: 10, diff_pixels: 6, diff_ratio: 0.03, summary: '6 of 200 pixels differ (3.00 %)' });
      const diff = PNG.sync.read(Buffer.from(res.body.diff_png, 'base64'));
      expect([diff.width, diff.height]).toEqual([20, 10]);
    }
    const tolerated = await api.post('/api/visual/compare', { baseline: b64(blue), actual: b64(patched), max_diff_pixels: 6, include_diff: false });
    expect(tolerated.body).toEqual({ match: true, width: 20, height: 10, diff_pixels: 6, diff_ratio: 0.03, summary: '6 of 200 pixels differ (3.00 %)' });
    const resized = await api.post('/api/visual/compare', { baseline: b64(blue), actual: b64(pngOf(10, 10, [0, 102, 204])) });
    expect(resized.body).toMatchObject({ match: false, size_mismatch: { baseline: { width: 20, height: 10 }, actual: { width: 10, height: 10 } } });
  });

  it('compares stored baselines and screenshots by id and hash', async () => {
    const res = await api.post('/api/visual/compare', { baseline: { screenshot_hash: firstHash }, actual: { baseline_id: baselineId }, include_diff: false });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ match: false, diff_pixels: 1600 });
    const same = await api.post('/api/visual/compare', { baseline: { baseline_id: baselineId }, actual: { screenshot_hash: proposedHash } });
    expect(same.body).toMatchObject({ match: true, diff_pixels: 0 });
    expect(same.body).not.toHaveProperty('diff_png');
  });

  it('bad base64, a non-PNG and unknown references are refused naming the field', async () => {
    const bad = await api.post('/api/visual/compare', { baseline: 'not base64 at all!', actual: b64(blue) });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.issues).toEqual([{ path: 'baseline', message: 'must be a base64-encoded PNG image' }]);
    const text = await api.post('/api/visual/compare', { baseline: b64(blue), actual: b64(new TextEncoder().encode('GIF89a, not a PNG')) });
    expect(text.body.error.details.issues).toEqual([{ path: 'actual', message: 'not a PNG image (no PNG signature and IHDR header)' }]);
    const interlaced = pngOf(20, 10, [0, 102, 204]);
    interlaced[28] = 1; // Adam7: refused before decoding (pngjs inflates those without a bound)
    const bomb = await api.post('/api/visual/compare', { baseline: b64(interlaced), actual: b64(blue) });
    expect(bomb.status).toBe(400);
    expect(bomb.body.error.details.issues).toEqual([{ path: 'baseline', message: 'interlaced PNGs are not supported' }]);
    const bombUpload = await api.post('/api/visual/baselines', { test_id: testId, name: 'uploaded', image: b64(interlaced) });
    expect(bombUpload.body.error.details.issues).toEqual([{ path: 'image', message: 'interlaced PNGs are not supported' }]);
    const corrupt = await api.post('/api/visual/compare', { baseline: b64(blue.slice(0, 60)), actual: b64(blue) });
    expect(corrupt.status).toBe(400);
    expect(corrupt.body.error.details.issues[0].path).toBe('baseline');
    const missing = await api.post('/api/visual/compare', { baseline: { baseline_id: '01900000-0000-7000-8000-000000000000' }, actual: b64(blue) });
    expect(missing.status).toBe(404);
    expect(missing.body.error.message).toBe('baseline.baseline_id: no visual baseline 01900000-0000-7000-8000-000000000000 in this organization');
    const wrongShape = await api.post('/api/visual/compare', { baseline: { baseline_id: 'nope' }, actual: b64(blue) });
    expect(wrongShape.body.error.details.issues[0].path).toBe('baseline.baseline_id');
  });
});

describe('another organization', () => {
  it('gets 404 for our baseline ids, image hashes and test, and lists nothing', async () => {
    const png = pngOf(4, 4, [1, 2, 3]);
    for (const res of [
      await stranger.get(`/api/visual/baselines/${baselineId}`),
      await stranger.get(`/api/visual/baselines/${baselineId}/image`),
      await stranger.delete(`/api/visual/baselines/${baselineId}`),
      await stranger.get(`/api/visual/images/${proposedHash}`),
      await stranger.get(`/api/visual/images/${firstHash}`),
      await stranger.get(`/api/visual/baselines?test_id=${testId}`),
      await stranger.get(`/api/visual/baselines?project_id=${projectId}`),
      // Accepting our screenshot into their own test, or anything into our test.
      await stranger.post('/api/visual/baselines', { test_id: strangerTestId, name: 'stolen', screenshot_hash: proposedHash }),
      await stranger.post('/api/visual/baselines', { test_id: testId, name: 'card', image: b64(png) }),
      await stranger.post('/api/visual/compare', { baseline: { baseline_id: baselineId }, actual: b64(png) }),
      await stranger.post('/api/visual/compare', { baseline: b64(png), actual: { screenshot_hash: proposedHash } }),
    ]) {
      expect(res.status, res.text).toBe(404);
      expect(res.body.error.code).toBe('NOT_FOUND');
    }
    expect((await stranger.get('/api/visual/baselines')).body.items).toEqual([]);
    // Ours is intact.
    expect((await api.get(`/api/visual/baselines/${baselineId}`)).body.screenshot_hash).toBe(proposedHash);
  });
});

describe('without a blob store', () => {
  it('image routes answer 501 NOT_CONFIGURED; records and inline comparisons still work', async () => {
    const app = createApp({ ...server.runtime.deps, blobs: undefined });
    const request = (path: string, body?: unknown) =>
      app.request(path, body === undefined ? { headers: authHeaders } : { method: 'POST', headers: { ...authHeaders, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    for (const res of [
      await request(`/api/visual/images/${firstHash}`),
      await request(`/api/visual/baselines/${baselineId}/image`),
      await request('/api/visual/baselines', { test_id: testId, name: 'card', screenshot_hash: firstHash }),
      await request('/api/visual/compare', { baseline: { baseline_id: baselineId }, actual: { screenshot_hash: firstHash } }),
    ]) {
      expect(res.status).toBe(501);
      expect((await res.json()).error).toEqual({ code: 'NOT_CONFIGURED', message: 'visual baseline images need a blob store, and none is configured on this server' });
    }
    expect((await request(`/api/visual/baselines/${baselineId}`)).status).toBe(200);
    const inline = pngOf(4, 4, [9, 9, 9]);
    expect(await (await request('/api/visual/compare', { baseline: b64(inline), actual: b64(inline) })).json()).toMatchObject({ match: true });
  });
});

describe('MCP tools', () => {
  it('lists baselines and compares images through the gateway', async () => {
    const agent = new McpClient({ name: 'svc-visual-test', version: '1.0.0' });
    await agent.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: authHeaders } }));
    try {
      const call = async (name: string, args: Record<string, unknown>) => (await agent.callTool({ name, arguments: args })) as CallToolResult;
      const listed = await call('svc_visual_baselines', { test_id: testId });
      expect(listed.isError).toBeFalsy();
      expect((listed.structuredContent as { items: Array<{ name: string }> }).items.map((b) => b.name)).toEqual(['card', 'uploaded']);
      const compared = await call('svc_visual_compare', { baseline: { baseline_id: baselineId }, actual: { screenshot_hash: firstHash }, include_diff: false });
      expect(compared.isError).toBeFalsy();
      expect(compared.structuredContent).toMatchObject({ match: false, diff_pixels: 1600 });
      const refused = await call('svc_visual_accept', { test_id: testId, name: 'card', screenshot_hash: 'e'.repeat(64) });
      expect(refused.isError).toBe(true);
    } finally {
      await agent.close();
    }
  });
});
