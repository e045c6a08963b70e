/**
 * POST /api/act and POST /api/extract answer with the page the steps ended on; its URL and
 * title are masked like the rest of the answer (found by QA). A project secret is
 * write-only (an admin sets it, the API never returns it): a member's act with
 * `goto /?x={{secrets.KEY}}` on an app that shows its query got the value back in `url` and
 * `title`, while the step's description said ***. Real HTTP, real Chromium.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestServer, client, signUp, type TestServer, type Client } from '../support/server.ts';

const SECRET = 'Zq9-act-s3cret-77';

let server: TestServer;
let app: Server;
let member: Client;
let projectId: string;

beforeAll(async () => {
  app = createServer((req, res) => {
    const x = new URL(req.url ?? '/', 'http://127.0.0.1').searchParams.get('x') ?? '';
    const esc = x.replace(/&/g, '&amp;').replace(/</g, '&lt;');
    res.setHeader('content-type', 'text/html; charset=utf-8');
    res.end(`<!doctype html><html><head><title>key ${esc}</title></head><body><h1>Your key: ${esc}</h1></body></html>`);
  });
  await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
  server = await startTestServer();
  const owner = await signUp(server.url, 'act-secrets@example.com');
  const admin = client(server.url, { token: owner.token, org: owner.orgId });
  projectId = (await admin.post('/api/v1/projects', { name: 'shop', app_url: `http://127.0.0.1:${(app.address() as AddressInfo).port}` })).body.id;
  expect((await admin.put(`/api/v1/projects/${projectId}/environment/KEY`, { value: SECRET, secret: true })).status).toBe(200);
  // A member: may run actions on the project, may not read the secret.
  const invite = await admin.post('/api/teams/invitations', { email: 'act-member@example.com', role: 'member' });
  const user = await signUp(server.url, 'act-member@example.com');
  expect((await client(server.url, { token: user.token }).post('/api/teams/invitations/accept', { token: invite.body.token })).status).toBe(200);
  member = client(server.url, { token: user.token, org: owner.orgId });
  expect((await member.get(`/api/v1/projects/${projectId}/environment`)).body.items[0]).toMatchObject({ name: 'KEY', secret: true, value: null });
}, 60_000);

afterAll(async () => {
  await server?.stop();
  await new Promise((resolve) => app?.close(resolve));
});

describe('the final page of act and extract', () => {
  it("act: the URL and title the secret went into say ***; the page's own part stays", async () => {
    const res = await member.post('/api/act', { project_id: projectId, steps: [{ type: 'goto', url: '/?x={{secrets.KEY}}' }] });
    expect(res.status, res.text).toBe(200);
    expect(res.body.status).toBe('passed');
    expect(res.body.url).toMatch(/\/\?x=\*\*\*$/);
    expect(res.body.title).toBe('key ***');
    expect(res.text).not.toContain(SECRET);
  }, 120_000);

  it('extract: the same', async () => {
    const res = await member.post('/api/extract', { project_id: projectId, url: '/?x={{secrets.KEY}}', fields: { heading: { selector: 'h1' } } });
    expect(res.status, res.text).toBe(200);
    expect(res.body.status).toBe('passed');
    expect(res.body.url).toMatch(/\/\?x=\*\*\*$/);
    expect(res.body.title).toBe('key ***');
    expect(res.text).not.toContain(SECRET);
  }, 120_000);
});
