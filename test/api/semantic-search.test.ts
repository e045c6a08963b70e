/**
 * Semantic search end to end: the local runtime runs real tests against the fixture app
 * (a sign-in in Chromium, API tests, one of which fails on its status), a person records
 * a heal, and GET /api/quality/semantic-search finds them by meaning and by identifier
 * with the configured (local) embedder. Also bad queries naming their field, another
 * organization's 404 and empty results, the /api/v1 path, the MCP tool through the SDK's
 * client, and a server whose remote embedder is down answering by words only, saying so.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { client, signUp, startTestServer, type Client } from '../support/server.ts';
import { startRunGraphServer } from '../run-graph/support/api-server.ts';
import { startFixtureApp, type FixtureApp } from '../fixtures/app/server.ts';

let server: Awaited<ReturnType<typeof startRunGraphServer>>;
let fixture: FixtureApp;
let api: Client;
let stranger: Client;
let authHeaders: Record<string, string>;
let projectId: string;
let otherProjectId: string;
let failedResultId: string;
let failedError: string;
const testIds: Record<string, string> = {};

const tests = [
  {
    name: 'user logs in', description: 'Sign in with the demo account\'s email and password, land on the dashboard', type: 'ui', tags: ['auth', 'smoke'],
    steps: [{ type: 'goto', url: '/login' }, { type: 'fill', selector: '#email', value: 'demo@example.com' }, { type: 'fill', selector: '#password', value: 's3cret!' }, { type: 'click', selector: '#login-submit' }],
    assertions: [{ type: 'url', contains: '/dashboard' }],
  },
  { name: 'items list', type: 'api', tags: ['api'], steps: [{ type: 'request', url: '/api/items' }], assertions: [{ type: 'status', equals: 200 }] },
  { name: 'item created teapot', description: 'Creating an item answers 418', type: 'api', steps: [{ type: 'request', url: '/api/items' }], assertions: [{ type: 'status', equals: 418 }] },
  { name: 'product catalogue lists products', type: 'ui', tags: ['catalog'], steps: [{ type: 'goto', url: '/catalog' }], assertions: [{ type: 'title', contains: 'Fixture' }] },
];

const search = (c: Client, params: Record<string, string | number>, base = '/api/quality/semantic-search') => c.get(`${base}?${new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)]))}`);

beforeAll(async () => {
  fixture = await startFixtureApp();
  server = await startRunGraphServer();
  const owner = await signUp(server.url, 'search@example.com');
  api = client(server.url, { token: owner.token, org: owner.orgId });
  authHeaders = { authorization: `Bearer ${owner.token}`, 'x-organization-id': owner.orgId };
  projectId = (await api.post('/api/v1/projects', { name: 'shop', app_url: fixture.url })).body.id;
  otherProjectId = (await api.post('/api/v1/projects', { name: 'blog', app_url: fixture.url })).body.id;
  for (const t of tests) {
    const created = await api.post('/api/tests', { project_id: projectId, ...t });
    expect(created.status, created.text).toBe(201);
    testIds[t.name] = created.body.id;
  }
  const blogTest = await api.post('/api/tests', { project_id: otherProjectId, name: 'blog post renders', type: 'api', steps: [{ type: 'request', url: '/api/items' }], assertions: [{ type: 'status', equals: 200 }] });
  expect(blogTest.status, blogTest.text).toBe(201);
  const heal = await api.post('/api/healing/apply-fix', { project_id: projectId, original_selector: '#buy-now', healed_selector: '[data-testid=checkout-submit]' });
  expect(heal.status, heal.text).toBe(201);
  const other = await signUp(server.url, 'other-search@example.com');
  stranger = client(server.url, { token: other.token, org: other.orgId });

  const started = await api.post('/api/v1/test/run', { project_id: projectId, test_ids: Object.values(testIds) });
  expect(started.status, started.text).toBe(201);
  const runId = started.body.run.id as string;
  for (const deadline = Date.now() + 90_000; ; await new Promise((r) => setTimeout(r, 100))) {
    const status = await api.get(`/api/v1/test/status/${runId}`);
    if (['completed', 'failed', 'cancelled'].includes(status.body.run.status)) break;
    if (Date.now() > deadline) throw new Error(`run ${runId} still ${status.body.run.status}`);
  }
  const results = await api.get(`/api/v1/tests/${runId}/results`);
  expect(results.status, results.text).toBe(200);
  const items = (results.body.items ?? results.body.results) as Array<{ id: string; test_id: string; status: string; error_message: string | null }>;
  const failed = items.filter((r) => r.status === 'failed');
  expect(failed.map((r) => r.test_id), JSON.stringify(items)).toEqual([testIds['item created teapot']]);
  expect(items.find((r) => r.test_id === testIds['user logs in'])?.status).toBe('passed');
  failedResultId = failed[0].id;
  failedError = failed[0].error_message!;
}, 180_000);
afterAll(async () => {
  await server?.stop();
  await fixture?.close();
});

describe('search by meaning over real tests, runs and heals', () => {
  it('"sign in with email" ranks the login test above unrelated tests', async () => {
    const res = await search(api, { q: 'sign in with email', project_id: projectId, kinds: 'tests' });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ query: 'sign in with email', embedder: { provider: 'local', model: 'svc-local-hash-v1' } });
    expect(res.body.embedder.fallback).toBeUndefined();
    const [first, ...rest] = res.body.results;
    expect(first).toMatchObject({ kind: 'test', id: testIds['user logs in'], title: 'user logs in', project_id: projectId, links: { test: `/api/tests/${testIds['user logs in']}` } });
    expect(first.snippet).toContain('Sign in');
    for (const r of rest) expect(r.score).toBeLessThan(first.score);
    expect(res.body.results.every((r: { kind: string }) => r.kind === 'test')).toBe(true);
  });

  it('a failure query matching the real failed run\'s error finds that failure', async () => {
    // What a person would type about it, not a copy of the stored error.
    expect(failedError).toMatch(/expected status 418, got 200/);
    const q = 'request answered 200 when status 418 was expected';
    const res = await search(api, { q, kinds: 'failures,tests' });
    expect(res.status, res.text).toBe(200);
    const failure = res.body.results.find((r: { kind: string }) => r.kind === 'failure');
    expect(failure, JSON.stringify(res.body)).toMatchObject({ id: failedResultId, title: 'item created teapot', project_id: projectId });
    expect(failure.links.test).toBe(`/api/tests/${testIds['item created teapot']}`);
    expect(failure.links.run).toMatch(/^\/api\/v1\/test\/status\//);
    expect(res.body.results[0].id === failedResultId || res.body.results[0].id === testIds['item created teapot']).toBe(true);
    // The passing runs' tests are no failures.
    expect(res.body.results.filter((r: { kind: string }) => r.kind === 'failure').map((r: { id: string }) => r.id)).toEqual([failedResultId]);
  });

  it('an exact selector finds the heal that replaced it', async () => {
    const res = await search(api, { q: '#buy-now', kinds: 'heals' });
    expect(res.status, res.text).toBe(200);
    expect(res.body.results[0]).toMatchObject({ kind: 'heal', title: '#buy-now → [data-testid=checkout-submit]', project_id: projectId, score: expect.any(Number) });
    expect(res.body.results[0].score).toBeGreaterThan(0.5);
  });

  it('without project_id it searches every project of the organization; with one, only that project', async () => {
    const all = await search(api, { q: 'blog post', kinds: 'tests' });
    expect(all.body.results[0]).toMatchObject({ title: 'blog post renders', project_id: otherProjectId });
    const shop = await search(api, { q: 'blog post', kinds: 'tests', project_id: projectId });
    expect(shop.body.results.map((r: { project_id: string }) => r.project_id).every((p: string) => p === projectId)).toBe(true);
    expect(shop.body.searched).toMatchObject({ tests: 4, failures: 0, heals: 0, truncated: false });
  });

  it('answers on /api/v1 too, and limit caps the results', async () => {
    const res = await search(api, { q: 'items', limit: 1 }, '/api/v1/quality/semantic-search');
    expect(res.status, res.text).toBe(200);
    expect(res.body.results).toHaveLength(1);
  });
});

describe('telemetry', () => {
  it('each search is counted in the spec\'s knowledge_search_latency_seconds, tier vector', async () => {
    const count = async () => {
      const text = await (await fetch(`${server.url}/metrics`)).text();
      return Number(/knowledge_search_latency_seconds_count\{tier="vector"\} (\d+)/.exec(text)?.[1] ?? 0);
    };
    const before = await count();
    expect((await search(api, { q: 'catalogue' })).status).toBe(200);
    expect(await count()).toBe(before + 1);
  });
});

describe('bad queries and other organizations', () => {
  it('names the field that is wrong', async () => {
    for (const [params, field] of [
      [{}, 'q'],
      [{ q: '   ' }, 'q'],
      [{ q: 'x'.repeat(501) }, 'q'],
      [{ q: 'login', kinds: 'tests,bugs' }, 'kinds'],
      [{ q: 'login', limit: 0 }, 'limit'],
      [{ q: 'login', limit: 51 }, 'limit'],
      [{ q: 'login', project_id: 'shop' }, 'project_id'],
    ] as const) {
      const res = await search(api, params);
      expect(res.status, JSON.stringify(params)).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_FAILED');
      expect(res.body.error.details.issues.map((d: { path: string }) => d.path), JSON.stringify(params)).toContain(field);
    }
  });

  it('another organization gets 404 for the project and finds nothing of it', async () => {
    expect((await search(stranger, { q: 'sign in with email', project_id: projectId })).status).toBe(404);
    const res = await search(stranger, { q: 'sign in with email' });
    expect(res.status, res.text).toBe(200);
    expect(res.body.results).toEqual([]);
    expect(res.body.searched).toMatchObject({ tests: 0, failures: 0, heals: 0 });
  });
});

describe('MCP tool', () => {
  it('an assistant searches with svc_search', async () => {
    const agent = new McpClient({ name: 'svc-search-test', version: '1.0.0' });
    await agent.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: authHeaders } }));
    try {
      const tool = (await agent.listTools()).tools.find((t) => t.name === 'svc_search');
      expect(tool?.annotations?.readOnlyHint).toBe(true);
      const res = (await agent.callTool({ name: 'svc_search', arguments: { q: 'log in to the dashboard', kinds: 'tests' } })) as CallToolResult;
      expect(res.isError).toBeFalsy();
      expect((res.structuredContent as { results: Array<{ id: string }> }).results[0].id).toBe(testIds['user logs in']);
      const bad = (await agent.callTool({ name: 'svc_search', arguments: { q: '' } })) as CallToolResult;
      expect(bad.isError).toBe(true);
    } finally {
      await agent.close();
    }
  });
});

describe('a remote embedder that is down', () => {
  it('ranks by words only and says so, with the reason', async () => {
    // A real OpenAI-compatible adapter pointed at a closed port: every call is refused.
    const saved = { provider: process.env.SVC_EMBEDDINGS_PROVIDER, base: process.env.SVC_EMBEDDINGS_BASE_URL };
    process.env.SVC_EMBEDDINGS_PROVIDER = 'openai';
    process.env.SVC_EMBEDDINGS_BASE_URL = 'http://127.0.0.1:9/v1';
    let down: Awaited<ReturnType<typeof startTestServer>> | undefined;
    try {
      down = await startTestServer();
    } finally {
      if (saved.provider === undefined) delete process.env.SVC_EMBEDDINGS_PROVIDER;
      else process.env.SVC_EMBEDDINGS_PROVIDER = saved.provider;
      if (saved.base === undefined) delete process.env.SVC_EMBEDDINGS_BASE_URL;
      else process.env.SVC_EMBEDDINGS_BASE_URL = saved.base;
    }
    try {
      const owner = await signUp(down.url, 'down@example.com');
      const c = client(down.url, { token: owner.token, org: owner.orgId });
      const p = (await c.post('/api/v1/projects', { name: 'p' })).body.id;
      await c.post('/api/tests', { project_id: p, name: 'coupon SAVE10 applies', type: 'api', steps: [{ type: 'request', url: 'http://127.0.0.1:9/' }] });
      await c.post('/api/tests', { project_id: p, name: 'profile picture upload', type: 'api', steps: [{ type: 'request', url: 'http://127.0.0.1:9/' }] });
      const res = await search(c, { q: 'SAVE10' });
      expect(res.status, res.text).toBe(200);
      expect(res.body.embedder).toMatchObject({ provider: 'openai', model: 'openai:text-embedding-3-small', fallback: true });
      expect(res.body.embedder.reason).toMatch(/openai/);
      expect(res.body.results.map((r: { title: string }) => r.title)).toEqual(['coupon SAVE10 applies']);
    } finally {
      await down.stop();
    }
  });
});
