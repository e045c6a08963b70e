/**
 * A project's config (its settings) over HTTP: bad run or healing settings are refused as
 * they are written, naming the field, and nothing is stored (before, the PATCH answered
 * 200 and every later run of the project was refused); API keys and agent tokens read the
 * config but do not change it (the spec's capability matrix: project settings read-only to
 * agents), while they may still create projects and rename them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, client, signUp, type TestServer, type Client } from '../support/server.ts';

let server: TestServer;
let admin: Client;
let agent: Client;
let projectId: string;

beforeAll(async () => {
  server = await startTestServer();
  const user = await signUp(server.url, 'project-config@example.com');
  admin = client(server.url, { token: user.token, org: user.orgId });
  projectId = (await admin.post('/api/v1/projects', { name: 'shop', config: { retries: 1, healing: { threshold: 0.9 } } })).body.id;
  const key = (await admin.post('/api/api-keys', { name: 'ci', permissions: ['read', 'write', 'admin'] })).body.key;
  agent = client(server.url, { token: key });
});
afterAll(async () => server?.stop());

describe('project config', () => {
  it('refuses bad run and healing settings naming each field, and stores nothing', async () => {
    const bad = await admin.patch(`/api/v1/projects/${projectId}`, { config: { max_concurrency: 100, retries: -1, healing: { threshold: 0.1, max_retries: 50 }, own_key: 'kept' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.issues.map((i: { path: string }) => i.path).sort()).toEqual(['config.healing.max_retries', 'config.healing.threshold', 'config.max_concurrency', 'config.retries']);
    expect(bad.body.error.details.issues.find((i: { path: string }) => i.path === 'config.healing.threshold').message).toBe('must be a number from 0.5 to 1');
    // The alias `settings` is checked the same way; so is a new project's config.
    expect((await admin.patch(`/api/v1/projects/${projectId}`, { settings: { approval_timeout_seconds: 0 } })).status).toBe(400);
    expect((await admin.post('/api/v1/projects', { name: 'bad', config: { baseline_mode: 'sometimes' } })).body.error.details.issues[0].path).toBe('config.baseline_mode');
    expect((await admin.get(`/api/v1/projects/${projectId}`)).body.config).toEqual({ retries: 1, healing: { threshold: 0.9 } });

    const good = await admin.patch(`/api/v1/projects/${projectId}`, { config: { max_concurrency: 4, healing: { threshold: 0.85 }, own_key: 'kept' } });
    expect(good.status).toBe(200);
    expect(good.body.config).toEqual({ max_concurrency: 4, healing: { threshold: 0.85 }, own_key: 'kept' });
  });

  it('API keys read the config but do not change it; they still create and rename projects', async () => {
    expect((await agent.get(`/api/v1/projects/${projectId}`)).body.config).toMatchObject({ max_concurrency: 4 });
    const loosen = await agent.patch(`/api/v1/projects/${projectId}`, { config: { require_healing_approval: false, healing: { threshold: 0.5 } } });
    expect(loosen.status).toBe(403);
    expect(loosen.body.error).toMatchObject({ code: 'FORBIDDEN', message: expect.stringContaining('config (project settings) is changed by people in the dashboard, not by API keys') });
    expect((await agent.post('/api/v1/projects', { name: 'from ci', settings: { retries: 2 } })).status).toBe(403);
    expect((await admin.get(`/api/v1/projects/${projectId}`)).body.config).toMatchObject({ healing: { threshold: 0.85 } });

    const created = await agent.post('/api/v1/projects', { name: 'from ci', app_url: 'http://127.0.0.1:3000' });
    expect(created.status).toBe(201);
    expect((await agent.patch(`/api/v1/projects/${created.body.id}`, { name: 'renamed by ci' })).body.name).toBe('renamed by ci');
  });
});
