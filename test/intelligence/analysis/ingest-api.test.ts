/**
 * Codebase ingestion through the knowledge worker (spec: codebase.ingested → knowledge worker →
 * codebase.analyzed): POST /api/analyze with async answers 202, the local runtime's worker
 * analyses the upload or folder, and GET /api/analyze/{id} has the verdict and the analysis.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { CodebaseAnalyzedPayload, type EventEnvelope } from '@svc/core/contracts/events';
import { CodebaseIngestionSchema } from '@svc/core/contracts/codebase-ingestions';
import { ingestionBlobKeys } from '@svc/core/knowledge/blob-keys';
import { startTestServer, client, signUp, type TestServer, type Client } from '../../support/server.ts';
import { reposDir, SENTINEL } from './sample-repos.ts';

let server: TestServer;
let api: Client;
let orgId: string;
let projectId: string;
const seen: EventEnvelope[] = [];

beforeAll(async () => {
  server = await startTestServer({ runtime: { analyzeRoots: [reposDir] } });
  const user = await signUp(server.url, 'ingest@example.com');
  orgId = user.orgId;
  api = client(server.url, { token: user.token, org: user.orgId });
  projectId = (await api.post('/api/v1/projects', { name: 'shop' })).body.id;
  server.runtime.bus.subscribe((e) => void seen.push(e));
});

afterAll(async () => {
  await server?.stop();
});

/** Waits for the worker's verdict on an ingestion (it consumes from its queue in the background). */
async function settled(id: string) {
  for (let i = 0; i < 200; i++) {
    await server.runtime.events.drain();
    const res = await api.get(`/api/analyze/${id}`);
    expect(res.status).toBe(200);
    if (res.body.status !== 'queued') return res.body;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`ingestion ${id} still queued`);
}

const upload = [
  { path: 'server.js', content: "const express = require('express');\nconst app = express();\napp.get('/items', (req, res) => res.json([]));\napp.post('/items', (req, res) => res.json({}));\nconst db = 'postgres://u:inline-" + SENTINEL + "@h/db';\n" },
  { path: '.env', content: `TOKEN=env-${SENTINEL}` },
];

describe('POST /api/analyze with async', () => {
  it('queues an upload, which the knowledge worker analyses, keeps and announces', async () => {
    const res = await api.post('/api/analyze', { project_id: projectId, files: upload, async: true, commit_sha: 'abc123' });
    expect(res.status).toBe(202);
    expect(res.headers.get('location')).toBe(`/api/analyze/${res.body.id}`);
    expect(CodebaseIngestionSchema.parse(res.body)).toMatchObject({ project_id: projectId, status: 'queued', source: { kind: 'inline', file_count: 2 }, codebase_path: 'inline upload', commit_sha: 'abc123', summary: null });
    expect(res.text).not.toContain(SENTINEL);

    const done = await settled(res.body.id);
    expect(done).toMatchObject({ status: 'analyzed', surface_count: 2, partial: false, error: null, finished_at: expect.any(String) });
    expect(done.summary.counts.http_routes).toBe(2);
    expect(done.analysis.surfaces.map((s: { method: string; path: string }) => `${s.method} ${s.path}`)).toEqual(['GET /items', 'POST /items']);
    expect(done.analysis.skipped).toEqual([{ path: '.env', reason: 'blocked: environment file' }]);
    expect(done.analysis.secrets).toEqual([{ file: 'server.js', line: 5, kind: 'connection_string_password' }]);
    expect(JSON.stringify(done)).not.toContain(SENTINEL);

    // The event chain: ingested (API) → analysed (knowledge worker), in one correlation.
    const ingested = seen.find((e) => e.event_type === 'codebase.ingested' && e.payload.ingestion_id === res.body.id)!;
    expect(ingested).toMatchObject({ source: 'svc.api', tenant_id: orgId, payload: { project_id: projectId, codebase_path: 'inline upload', commit_sha: 'abc123' } });
    const analyzed = seen.find((e) => e.event_type === 'codebase.analyzed' && e.payload.ingestion_id === res.body.id)!;
    expect(analyzed).toMatchObject({ source: 'svc.knowledge-worker', correlation_id: ingested.correlation_id });
    expect(CodebaseAnalyzedPayload.parse(analyzed.payload)).toMatchObject({ surface_count: 2, commit_sha: 'abc123' });
    expect(JSON.stringify(analyzed)).not.toContain(SENTINEL);

    // The upload (secrets and all) is gone once analysed; the redacted analysis stays.
    expect(await server.runtime.blobs.get(ingestionBlobKeys.files(orgId, res.body.id))).toBeUndefined();
    expect(await server.runtime.blobs.get(ingestionBlobKeys.analysis(orgId, res.body.id))).toBeDefined();

    // The worker counted what it did.
    const metrics = await client(server.url).get('/metrics');
    expect(metrics.text).toMatch(/knowledge_ecl_operations_total\{operation="extract",status="ok"\} [1-9]/);
    expect(metrics.text).toMatch(/knowledge_ecl_operations_total\{operation="load",status="ok"\} [1-9]/);
  });

  it('queues a folder inside SVC_ANALYZE_ROOTS', async () => {
    const res = await api.post('/api/analyze', { project_id: projectId, path: join(reposDir, 'fastify-api'), async: true });
    expect(res.status).toBe(202);
    expect(res.body.source).toEqual({ kind: 'path', path: join(reposDir, 'fastify-api') });
    const done = await settled(res.body.id);
    expect(done).toMatchObject({ status: 'analyzed', surface_count: 6 });
    expect(done.analysis.summary.counts.http_routes).toBe(6);
  });

  it('lists a project\'s ingestions newest first, in pages', async () => {
    const first = await api.get(`/api/analyze?project_id=${projectId}&limit=1`);
    expect(first.status).toBe(200);
    expect(first.body.items).toHaveLength(1);
    expect(first.body.items[0]).toMatchObject({ source: { kind: 'path' }, status: 'analyzed' });
    const second = await api.get(`/api/analyze?project_id=${projectId}&limit=1&cursor=${encodeURIComponent(first.body.next_cursor)}`);
    expect(second.body.items[0]).toMatchObject({ source: { kind: 'inline' } });
    expect(first.body.items[0].analysis).toBeUndefined(); // the list carries summaries, not analyses
  });

  it('an ingestion the worker cannot analyse fails with the reason, and the rest goes on', async () => {
    // The upload vanished before the worker got to it (an operator's clean-up, say): the
    // worker is paused so the deletion comes first, then drained by settled().
    const worker = server.runtime.events.consumers.get('knowledge-worker')!.poller;
    await worker.stop();
    const res = await api.post('/api/analyze', { project_id: projectId, files: upload, async: true });
    await server.runtime.blobs.delete(ingestionBlobKeys.files(orgId, res.body.id));
    const failed = await settled(res.body.id);
    worker.start();
    expect(failed).toMatchObject({ status: 'failed', error: expect.stringContaining('uploaded files are gone'), analysis: null, summary: null });
    const next = await api.post('/api/analyze', { project_id: projectId, files: upload, async: true });
    expect((await settled(next.body.id)).status).toBe('analyzed');
  });

  it('a folder outside the roots is refused at once, naming the field', async () => {
    const res = await api.post('/api/analyze', { project_id: projectId, path: '/etc', async: true });
    expect(res.status).toBe(400);
    expect(res.body.error.details.issues).toEqual([{ path: 'path', message: expect.stringContaining('outside the folders') }]);
    const bad = await api.post('/api/analyze', { project_id: projectId, files: upload, async: 'yes' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.issues.map((i: { path: string }) => i.path)).toContain('async');
  });

  it("other organizations see neither the ingestions nor the project's list", async () => {
    const mine = await api.post('/api/analyze', { project_id: projectId, files: upload, async: true });
    await settled(mine.body.id);
    const other = await signUp(server.url, 'ingest-other@example.com');
    const them = client(server.url, { token: other.token, org: other.orgId });
    expect((await them.get(`/api/analyze/${mine.body.id}`)).status).toBe(404);
    expect((await them.get(`/api/analyze?project_id=${projectId}`)).status).toBe(404);
    expect((await them.post('/api/analyze', { project_id: projectId, files: upload, async: true })).status).toBe(404);
    expect((await api.get('/api/analyze/00000000-0000-4000-8000-000000000000')).status).toBe(404);
  });
});

describe('planning from the knowledge worker\'s analysis', () => {
  it('plans the surfaces of a named ingestion or of the project\'s latest, with a diff', async () => {
    const files = [{ path: 'src/auth.js', content: "const app = require('express')();\napp.post('/api/login', h);\napp.get('/api/orders', h);\n" }];
    const queued = await api.post('/api/analyze', { project_id: projectId, files, async: true });
    await settled(queued.body.id);
    const plan = await api.post('/api/suggest', { ingestion_id: queued.body.id, changed_files: ['src/auth.js'] });
    expect(plan.status, plan.text).toBe(200);
    const login = plan.body.items.find((i: { target: string }) => i.target.includes('/api/login'));
    expect(login).toMatchObject({ priority: 'CRITICAL' });
    expect(login.reasons).toContain('changed in this diff: src/auth.js');
    // The project's latest analysed codebase is this one.
    const latest = await api.post('/api/risk/score', { project_id: projectId, changed_files: ['src/auth.js'], target: '/api/login' });
    expect(latest.status, latest.text).toBe(200);
    expect(latest.body.priority).toBe('CRITICAL');
  });

  it('a queued or failed ingestion is a 409; a project with none, or another organization\'s, says so', async () => {
    const worker = server.runtime.events.consumers.get('knowledge-worker')!.poller;
    await worker.stop();
    try {
      const queued = await api.post('/api/analyze', { project_id: projectId, files: upload, async: true });
      const res = await api.post('/api/suggest', { ingestion_id: queued.body.id });
      expect(res.status).toBe(409);
      expect(res.body.error.message).toMatch(/is queued; plan with an analysed one/);
    } finally {
      worker.start();
    }
    const bare = (await api.post('/api/v1/projects', { name: 'no code' })).body.id;
    const none = await api.post('/api/suggest', { project_id: bare });
    expect(none.status).toBe(400);
    expect(none.body.error.details.issues).toEqual([{ path: 'project_id', message: expect.stringContaining('no analysed codebase') }]);
    const other = await signUp(server.url, 'plan-other@example.com');
    const them = client(server.url, { token: other.token, org: other.orgId });
    expect((await them.post('/api/suggest', { project_id: projectId })).status).toBe(404);
    const mine = (await api.get(`/api/analyze?project_id=${projectId}&limit=1`)).body.items[0].id;
    expect((await them.post('/api/suggest', { ingestion_id: mine })).status).toBe(404);
  });
});

describe('a restart', () => {
  it('announces the ingestions still queued again, so none is left waiting for ever', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'svc-ingest-restart-'));
    const first = await startTestServer({ dataDir });
    const admin = client(first.url, { token: first.admin.apiKey });
    const project = (await admin.post('/api/v1/projects', { name: 'restarted' })).body.id as string;
    // The worker is paused, then the runtime stops: the event was only in the in-memory queue.
    await first.runtime.events.consumers.get('knowledge-worker')!.poller.stop();
    const queued = await admin.post('/api/analyze', { project_id: project, files: upload, async: true });
    expect(queued.status).toBe(202);
    await first.stop();

    const second = await startTestServer({ dataDir });
    try {
      const again = client(second.url, { token: second.admin.apiKey });
      await expect.poll(async () => (await again.get(`/api/analyze/${queued.body.id}`)).body.status, { timeout: 15_000, interval: 50 }).toBe('analyzed');
      expect(await second.runtime.deps.store.codebaseIngestions.listQueued(new Date().toISOString())).toEqual([]);
    } finally {
      await second.stop();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

