import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { join } from 'node:path';
import { EventEnvelopeSchema, CodebaseAnalyzedPayload, type EventEnvelope } from '@svc/core/contracts/events';
import { startTestServer, client, signUp, type TestServer, type Client } from '../../support/server.ts';
import { reposDir, SENTINEL } from './sample-repos.ts';

let server: TestServer;
let noRoots: TestServer;
let api: Client;
let projectId: string;

beforeAll(async () => {
  server = await startTestServer({ runtime: { analyzeRoots: [reposDir] } });
  noRoots = await startTestServer({ runtime: { analyzeRoots: [] } });
  const user = await signUp(server.url, 'analyst@example.com');
  api = client(server.url, { token: user.token, org: user.orgId });
  projectId = (await api.post('/api/v1/projects', { name: 'shop' })).body.id;
});

afterAll(async () => {
  await server?.stop();
  await noRoots?.stop();
});

describe('POST /api/analyze', () => {
  it('analyses inline files, redacts secrets, skips blocked files and publishes codebase.analyzed', async () => {
    const events: EventEnvelope[] = [];
    const off = server.runtime.bus.subscribe((e) => void events.push(e));
    const res = await api.post('/api/analyze', {
      project_id: projectId,
      files: [
        { path: 'server.js', content: "const express = require('express');\nconst app = express();\napp.get('/items', (req, res) => res.json([]));\nconst db = 'postgres://u:inline-" + SENTINEL + "@h/db';\n" },
        { path: '.env', content: `TOKEN=env-${SENTINEL}` },
        { path: 'index.html', content: '<form action="/subscribe" method="post"><input name="email" data-testid="email"></form>' },
      ],
    });
    off();
    expect(res.status).toBe(200);
    expect(res.text).not.toContain(SENTINEL);
    expect(res.body.surfaces).toEqual([{ kind: 'http_route', method: 'GET', path: '/items', file: 'server.js', line: 3, framework: 'express' }]);
    expect(res.body.forms[0]).toMatchObject({ action: '/subscribe', method: 'POST' });
    expect(res.body.skipped).toEqual([{ path: '.env', reason: 'blocked: environment file' }]);
    expect(res.body.secrets).toEqual([{ file: 'server.js', line: 4, kind: 'connection_string_password' }]);
    expect(res.body.source).toEqual({ kind: 'inline', partial: false });

    const analysed = events.filter((e) => e.event_type === 'codebase.analyzed');
    expect(analysed).toHaveLength(1);
    const event = EventEnvelopeSchema.parse(analysed[0]);
    const payload = CodebaseAnalyzedPayload.parse(event.payload);
    expect(payload).toMatchObject({ project_id: projectId, codebase_path: 'inline upload', surface_count: 1 });
    expect(payload.summary).toMatch(/1 surfaces: 1 HTTP routes/);
    expect(payload.testable_surfaces).toEqual([expect.objectContaining({ method: 'GET', path: '/items' })]);
    expect(JSON.stringify(event)).not.toContain(SENTINEL);
  });

  it('reads a folder inside SVC_ANALYZE_ROOTS', async () => {
    const res = await api.post('/api/analyze', { project_id: projectId, path: join(reposDir, 'fastify-api') });
    expect(res.status).toBe(200);
    expect(res.body.summary.counts.http_routes).toBe(6);
    expect(res.body.source).toMatchObject({ kind: 'path', partial: false });
  });

  it('refuses a folder outside the allowed roots, naming the field', async () => {
    for (const path of ['/etc', join(reposDir, '..', '..', '..')]) {
      const res = await api.post('/api/analyze', { project_id: projectId, path });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_FAILED');
      expect(res.body.error.details.issues).toEqual([{ path: 'path', message: expect.stringContaining('outside the folders') }]);
    }
    const missing = await api.post('/api/analyze', { project_id: projectId, path: join(reposDir, 'missing') });
    expect(missing.status).toBe(400);
    expect(missing.body.error.details.issues[0]).toEqual({ path: 'path', message: 'path does not exist on the server' });
  });

  it('explains that a server without SVC_ANALYZE_ROOTS reads no folders', async () => {
    const user = await signUp(noRoots.url, 'nr@example.com');
    const c = client(noRoots.url, { token: user.token, org: user.orgId });
    const project = (await c.post('/api/v1/projects', { name: 'p' })).body.id;
    const res = await c.post('/api/analyze', { project_id: project, path: reposDir });
    expect(res.status).toBe(501);
    expect(res.body.error.code).toBe('NOT_CONFIGURED');
    expect(res.body.error.message).toMatch(/SVC_ANALYZE_ROOTS/);
    const inline = await c.post('/api/analyze', { project_id: project, files: [{ path: 'a.html', content: '<button data-testid="x">x</button>' }] });
    expect(inline.status).toBe(200);
    expect(inline.body.elements).toHaveLength(1);
  });

  it("reads a folder given as '<organization id>=<folder>' for that organization only", async () => {
    // One server, two teams: each team's code is open to its own organization, not to the other's.
    const a = await signUp(noRoots.url, 'team-a@example.com');
    const b = await signUp(noRoots.url, 'team-b@example.com');
    const teamA = client(noRoots.url, { token: a.token, org: a.orgId });
    const teamB = client(noRoots.url, { token: b.token, org: b.orgId });
    const projectA = (await teamA.post('/api/v1/projects', { name: 'a' })).body.id;
    const projectB = (await teamB.post('/api/v1/projects', { name: 'b' })).body.id;
    const codeOfA = join(reposDir, 'fastify-api');
    noRoots.runtime.deps.analyzeRoots = [`${a.orgId}=${codeOfA}`];
    try {
      const own = await teamA.post('/api/analyze', { project_id: projectA, path: codeOfA });
      expect(own.status, own.text).toBe(200);
      expect(own.body.summary.counts.http_routes).toBe(6);
      // The other team's members read nothing there: to them this server reads no folders yet.
      for (const body of [{ project_id: projectB, path: codeOfA }, { project_id: projectB, path: codeOfA, async: true }]) {
        const refused = await teamB.post('/api/analyze', body);
        expect(refused.status, refused.text).toBe(501);
        expect(refused.body.error.code).toBe('NOT_CONFIGURED');
        expect(refused.body.error.message).toMatch(/for this organization/);
      }
      // With a folder of its own, the other team's path is outside it (a 400 naming path).
      noRoots.runtime.deps.analyzeRoots = [`${a.orgId}=${codeOfA}`, `${b.orgId.toUpperCase()}=${join(reposDir, 'express-shop')}`];
      const outside = await teamB.post('/api/analyze', { project_id: projectB, path: codeOfA });
      expect(outside.status, outside.text).toBe(400);
      expect(outside.body.error.details.issues).toEqual([{ path: 'path', message: expect.stringContaining('outside the folders') }]);
      const ownB = await teamB.post('/api/analyze', { project_id: projectB, path: join(reposDir, 'express-shop') });
      expect(ownB.status, ownB.text).toBe(200);
      expect(ownB.body.source).toMatchObject({ kind: 'path' });
    } finally {
      noRoots.runtime.deps.analyzeRoots = [];
    }
  });

  it('bad input is a 400 naming the field', async () => {
    const cases: Array<[unknown, string]> = [
      [{ files: [{ path: 'a.js', content: '' }] }, 'project_id'],
      [{ project_id: projectId }, 'path'],
      [{ project_id: projectId, path: '/x', files: [{ path: 'a.js', content: '' }] }, 'path'],
      [{ project_id: projectId, files: [] }, 'files'],
      [{ project_id: projectId, files: [{ path: 'a.js' }] }, 'files.0.content'],
      [{ project_id: projectId, files: [{ path: 'a.js', content: 'x', mode: 1 }] }, 'files.0.mode'],
      [{ project_id: projectId, files: [{ path: 'a.js', content: 'x'.repeat(1024 * 1024 + 1) }] }, 'files.0.content'],
    ];
    for (const [body, field] of cases) {
      const res = await api.post('/api/analyze', body);
      expect(res.status, JSON.stringify(body).slice(0, 100)).toBe(400);
      expect(res.body.error.details.issues.map((i: { path: string }) => i.path)).toContain(field);
    }
  });

  it("another organization's project is not found", async () => {
    const other = await signUp(server.url, 'other-analyst@example.com');
    const res = await client(server.url, { token: other.token, org: other.orgId }).post('/api/analyze', { project_id: projectId, files: [{ path: 'a.js', content: 'x' }] });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('NOT_FOUND');
  });

  it('needs a signed-in member', async () => {
    const res = await client(server.url).post('/api/analyze', { project_id: projectId, files: [{ path: 'a.js', content: 'x' }] });
    expect(res.status).toBe(401);
  });

  it('is in the OpenAPI document', async () => {
    const doc = await client(server.url).get('/api/openapi.json');
    expect(doc.status).toBe(200);
    expect(doc.body.paths['/api/analyze'].post).toBeTruthy();
  });
});
