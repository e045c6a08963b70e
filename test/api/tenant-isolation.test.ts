import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startTestServer, client, signUp, type TestServer, type Client } from '../support/server.ts';

/**
 * Tenant isolation: every org-scoped endpoint, called by each role of organization A,
 * against organization B's resources — by id under A's scope, and by naming B in
 * X-Organization-ID. B's data must be invisible (404) or the call refused by role
 * (403, which says nothing about B), and nothing of B's may change.
 */
type Role = 'admin' | 'member' | 'viewer';

let server: TestServer;
const A: Record<Role, Client> = {} as Record<Role, Client>;
const asB: Record<Role, Client> = {} as Record<Role, Client>;
let orgA: string;
let orgB: string;
let bAdmin: Client;
const b = { projectId: '', testId: '', invitationId: '', apiKeyId: '', adminUserId: '', conversationId: '', discoveryId: '', healingPatternId: '', generatedTestId: '', visualBaselineId: '', visualHash: '', vcsIntegrationId: '', chatIntegrationId: '', flowId: '' };
/** A 1×1 PNG (base64), for visual baselines. */
const tinyPng = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
/** A run of B's, for the report routes. */
let bRunId = '';

beforeAll(async () => {
  server = await startTestServer();
  const adminA = await signUp(server.url, 'admin-a@example.com', 'Org A');
  orgA = adminA.orgId;
  A.admin = client(server.url, { token: adminA.token, org: orgA });
  for (const role of ['member', 'viewer'] as const) {
    const invite = await A.admin.post('/api/teams/invitations', { email: `${role}-a@example.com`, role });
    expect(invite.status).toBe(201);
    const user = await signUp(server.url, `${role}-a@example.com`);
    const accept = await client(server.url, { token: user.token }).post('/api/teams/invitations/accept', { token: invite.body.token });
    expect(accept.status).toBe(200);
    A[role] = client(server.url, { token: user.token, org: orgA });
  }
  const adminB = await signUp(server.url, 'admin-b@example.com', 'Org B');
  orgB = adminB.orgId;
  b.adminUserId = adminB.userId;
  bAdmin = client(server.url, { token: adminB.token, org: orgB });
  b.projectId = (await bAdmin.post('/api/v1/projects', { name: 'B secret project', app_url: 'http://127.0.0.1:1' })).body.id;
  b.testId = (await bAdmin.post('/api/tests', { project_id: b.projectId, name: 'B test', type: 'api' })).body.id;
  // A run of B's (finished or not: another organization's run is a 404 before its status matters).
  const run = await bAdmin.post('/api/v1/test/run', { project_id: b.projectId, test_ids: [b.testId] });
  expect(run.status, run.text).toBe(201);
  bRunId = run.body.run.id;
  b.invitationId = (await bAdmin.post('/api/teams/invitations', { email: 'x@example.com' })).body.id;
  b.apiKeyId = (await bAdmin.post('/api/api-keys', { name: 'B key', permissions: ['read'] })).body.id;
  b.healingPatternId = (await bAdmin.post('/api/healing/apply-fix', { project_id: b.projectId, original_selector: '#b-secret', healed_selector: '#b-secret-2' })).body.id;
  b.conversationId = (await bAdmin.post('/api/v1/chat', { message: 'how many tests are there?', project_id: b.projectId })).body.conversation_id;
  // A stored session (no crawl needed): discovery reads must not cross tenants.
  b.discoveryId = (await server.runtime.deps.store.discovery.createSession(orgB, { project_id: b.projectId, name: 'B discovery', start_url: 'http://127.0.0.1:1/', mode: 'dom_only', strategy: 'priority', max_pages: 5 })).id;
  b.generatedTestId = (await bAdmin.post('/api/nlp/create-test', { project_id: b.projectId, text: 'go to "/"', execute: false })).body.generated_test.id;
  const baseline = await bAdmin.post('/api/visual/baselines', { test_id: b.testId, name: 'B secret page', image: tinyPng });
  expect(baseline.status).toBe(201);
  b.visualBaselineId = baseline.body.id;
  b.visualHash = baseline.body.screenshot_hash;
  b.vcsIntegrationId = (await bAdmin.post('/api/integrations/vcs', { project_id: b.projectId, provider: 'github', repository: 'b-org/secret-repo' })).body.id;
  b.chatIntegrationId = (await bAdmin.post('/api/integrations/chat', { provider: 'slack', project_id: b.projectId, signing_secret: 'b0b1b2b3b4b5b6b7b8b9c0c1c2c3c4c5', team_id: 'T0BORG' })).body.id;
  const flow = await bAdmin.post('/api/flows', { project_id: b.projectId, name: 'B secret flow', steps: [{ type: 'goto', url: '/' }] });
  expect(flow.status, flow.text).toBe(201);
  b.flowId = flow.body.id;
  for (const role of ['admin', 'member', 'viewer'] as const) asB[role] = withOrg(A[role], orgB);
});

afterAll(async () => server?.stop());

/** The same caller, naming another organization in X-Organization-ID. */
function withOrg(c: Client, org: string): Client {
  return {
    get: (p, e) => c.get(p, { ...e, org }),
    post: (p, body, e) => c.post(p, body, { ...e, org }),
    patch: (p, body, e) => c.patch(p, body, { ...e, org }),
    put: (p, body, e) => c.put(p, body, { ...e, org }),
    delete: (p, e) => c.delete(p, { ...e, org }),
    call: (m, p, body, e) => c.call(m, p, body, { ...e, org }),
  };
}

/** Endpoints that take one of B's ids, with the least role that may call them at all. */
const byId = (): Array<{ name: string; minRole: Role; call: (c: Client) => ReturnType<Client['get']> }> => [
  { name: 'GET project', minRole: 'viewer', call: (c) => c.get(`/api/v1/projects/${b.projectId}`) },
  { name: 'PATCH project', minRole: 'member', call: (c) => c.patch(`/api/v1/projects/${b.projectId}`, { name: 'pwned' }) },
  { name: 'GET test', minRole: 'viewer', call: (c) => c.get(`/api/tests/${b.testId}`) },
  { name: 'GET flow', minRole: 'viewer', call: (c) => c.get(`/api/flows/${b.flowId}`) },
  { name: 'GET flows of project', minRole: 'viewer', call: (c) => c.get(`/api/flows?project_id=${b.projectId}`) },
  { name: 'POST flow into project', minRole: 'member', call: (c) => c.post('/api/flows', { project_id: b.projectId, name: 'x', steps: [{ type: 'goto', url: '/' }] }) },
  { name: 'PATCH flow', minRole: 'member', call: (c) => c.patch(`/api/flows/${b.flowId}`, { name: 'pwned' }) },
  { name: 'DELETE flow', minRole: 'member', call: (c) => c.delete(`/api/flows/${b.flowId}`) },
  { name: 'GET tests of project', minRole: 'viewer', call: (c) => c.get(`/api/tests?project_id=${b.projectId}`) },
  { name: 'POST test into project', minRole: 'member', call: (c) => c.post('/api/tests', { project_id: b.projectId, name: 'x', type: 'ui' }) },
  { name: 'POST analyze for project', minRole: 'member', call: (c) => c.post('/api/analyze', { project_id: b.projectId, files: [{ path: 'a.html', content: '<b data-testid="x">' }] }) },
  { name: 'POST api key for project', minRole: 'admin', call: (c) => c.post('/api/api-keys', { name: 'x', project_id: b.projectId }) },
  { name: 'DELETE api key', minRole: 'admin', call: (c) => c.delete(`/api/api-keys/${b.apiKeyId}`) },
  { name: 'DELETE invitation', minRole: 'admin', call: (c) => c.delete(`/api/teams/invitations/${b.invitationId}`) },
  { name: 'PATCH member role', minRole: 'admin', call: (c) => c.patch(`/api/teams/members/${b.adminUserId}`, { role: 'viewer' }) },
  { name: 'DELETE member', minRole: 'admin', call: (c) => c.delete(`/api/teams/members/${b.adminUserId}`) },
  { name: 'GET chat history', minRole: 'viewer', call: (c) => c.get(`/api/v1/chat/history/${b.conversationId}`) },
  { name: 'POST chat into conversation', minRole: 'viewer', call: (c) => c.post('/api/v1/chat', { message: 'what failed?', conversation_id: b.conversationId }) },
  { name: 'POST chat about project', minRole: 'viewer', call: (c) => c.post('/api/chat', { message: 'what failed?', project_id: b.projectId }) },
  { name: 'POST stream chat into conversation', minRole: 'viewer', call: (c) => c.post('/api/v1/stream/chat', { message: 'what failed?', conversation_id: b.conversationId }) },
  { name: 'GET discovery session', minRole: 'viewer', call: (c) => c.get(`/api/discovery/${b.discoveryId}`) },
  { name: 'GET discovery pages', minRole: 'viewer', call: (c) => c.get(`/api/v1/discovery/${b.discoveryId}/pages`) },
  { name: 'POST discovery start for project', minRole: 'member', call: (c) => c.post('/api/v1/discovery/start', { project_id: b.projectId }) },
  { name: 'POST discovery run for project', minRole: 'member', call: (c) => c.post('/api/discovery/run', { project_id: b.projectId }) },
  { name: 'POST discover for project', minRole: 'member', call: (c) => c.post('/api/discover', { project_id: b.projectId }) },
  { name: 'POST quality audit of project', minRole: 'member', call: (c) => c.post('/api/quality/audit', { project_id: b.projectId }) },
  { name: 'POST act on project', minRole: 'member', call: (c) => c.post('/api/act', { project_id: b.projectId, steps: [{ type: 'click', selector: '#x' }] }) },
  { name: 'POST extract on project', minRole: 'member', call: (c) => c.post('/api/extract', { project_id: b.projectId, fields: { title: { selector: 'h1' } } }) },
  { name: 'GET semantic search of project', minRole: 'viewer', call: (c) => c.get(`/api/quality/semantic-search?q=secret&project_id=${b.projectId}`) },
  { name: 'POST suggest from discovery', minRole: 'viewer', call: (c) => c.post('/api/suggest', { discovery_session_id: b.discoveryId }) },
  { name: 'POST risk score from discovery', minRole: 'viewer', call: (c) => c.post('/api/risk/score', { discovery_session_id: b.discoveryId }) },
  { name: 'POST healing suggest-fixes for project', minRole: 'viewer', call: (c) => c.post('/api/healing/suggest-fixes', { project_id: b.projectId, original_selector: '#x', fingerprint: { tag: 'button', id: 'x' }, candidates: [{ tag: 'button', id: 'x' }] }) },
  { name: 'POST healing apply-fix into project', minRole: 'member', call: (c) => c.post('/api/healing/apply-fix', { project_id: b.projectId, original_selector: '#x', healed_selector: '#y' }) },
  { name: 'GET healing patterns of project', minRole: 'viewer', call: (c) => c.get(`/api/v1/healing/patterns?project_id=${b.projectId}`) },
  { name: 'POST healing pattern revert', minRole: 'member', call: (c) => c.post(`/api/healing/patterns/${b.healingPatternId}/revert`) },
  { name: 'GET healing config of project', minRole: 'viewer', call: (c) => c.get(`/api/healing/config?project_id=${b.projectId}`) },
  { name: 'GET healing stats of project', minRole: 'viewer', call: (c) => c.get(`/api/healing/stats?project_id=${b.projectId}`) },
  { name: 'POST healing review of pattern', minRole: 'viewer', call: (c) => c.post('/api/healing/review', { pattern_ids: [b.healingPatternId] }) },
  { name: 'POST heal test', minRole: 'member', call: (c) => c.post('/api/heal', { test_id: b.testId, original_selector: '#x' }) },
  { name: 'POST nlp create-test into project', minRole: 'member', call: (c) => c.post('/api/nlp/create-test', { project_id: b.projectId, text: 'go to "/"', execute: false }) },
  { name: 'POST nlp create-from-story into project', minRole: 'member', call: (c) => c.post('/api/nlp/create-from-story', { project_id: b.projectId, story: 'Given I open the app', execute: false }) },
  { name: 'POST recording convert into project', minRole: 'member', call: (c) => c.post('/api/recording/convert', { project_id: b.projectId, recording: { title: 'x', steps: [{ type: 'navigate', url: 'http://127.0.0.1:1/' }] }, execute: false }) },
  { name: 'POST test from event into project', minRole: 'member', call: (c) => c.post('/api/test/from-event', { project_id: b.projectId, event: { message: 'boom', url: 'http://127.0.0.1:1/' }, execute: false }) },
  { name: 'POST generate into project', minRole: 'member', call: (c) => c.post('/api/generate', { project_id: b.projectId, url: '/', execute: false }) },
  { name: 'POST generate batch from discovery', minRole: 'member', call: (c) => c.post('/api/generate/batch', { project_id: b.projectId, discovery_session_id: b.discoveryId, execute: false }) },
  { name: 'POST review of test', minRole: 'viewer', call: (c) => c.post('/api/test/review', { test_id: b.testId }) },
  { name: 'GET generated tests of project', minRole: 'viewer', call: (c) => c.get(`/api/generated-tests?project_id=${b.projectId}`) },
  { name: 'GET generated test', minRole: 'viewer', call: (c) => c.get(`/api/generated-tests/${b.generatedTestId}`) },
  { name: 'GET visual baseline', minRole: 'viewer', call: (c) => c.get(`/api/visual/baselines/${b.visualBaselineId}`) },
  { name: 'GET visual baseline image', minRole: 'viewer', call: (c) => c.get(`/api/visual/baselines/${b.visualBaselineId}/image`) },
  { name: 'GET visual baselines of test', minRole: 'viewer', call: (c) => c.get(`/api/visual/baselines?test_id=${b.testId}`) },
  { name: 'GET visual baselines of project', minRole: 'viewer', call: (c) => c.get(`/api/visual/baselines?project_id=${b.projectId}`) },
  { name: 'GET visual image by hash', minRole: 'viewer', call: (c) => c.get(`/api/visual/images/${b.visualHash}`) },
  { name: 'POST visual compare with baseline', minRole: 'viewer', call: (c) => c.post('/api/visual/compare', { baseline: { baseline_id: b.visualBaselineId }, actual: tinyPng }) },
  { name: 'POST visual baseline into test', minRole: 'member', call: (c) => c.post('/api/visual/baselines', { test_id: b.testId, name: 'B secret page', image: tinyPng }) },
  { name: 'DELETE visual baseline', minRole: 'member', call: (c) => c.delete(`/api/visual/baselines/${b.visualBaselineId}`) },
  { name: 'GET report of run', minRole: 'viewer', call: (c) => c.get(`/api/reports/${bRunId}`) },
  { name: 'POST generate report of run', minRole: 'viewer', call: (c) => c.post('/api/reports/generate', { run_id: bRunId, format: 'json' }) },
  { name: 'POST download report of run', minRole: 'viewer', call: (c) => c.post(`/api/reports/${bRunId}/download`, { format: 'pdf' }) },
  { name: 'GET compare run', minRole: 'viewer', call: (c) => c.get(`/api/runs/${bRunId}/compare`) },
  { name: 'GET compare run (v1)', minRole: 'viewer', call: (c) => c.get(`/api/v1/runs/${bRunId}/compare`) },
  { name: 'GET VCS integration', minRole: 'admin', call: (c) => c.get(`/api/integrations/vcs/${b.vcsIntegrationId}`) },
  { name: 'GET VCS integrations of project', minRole: 'admin', call: (c) => c.get(`/api/integrations/vcs?project_id=${b.projectId}`) },
  { name: 'GET VCS integration deliveries', minRole: 'admin', call: (c) => c.get(`/api/integrations/vcs/${b.vcsIntegrationId}/deliveries`) },
  { name: 'GET VCS integration statuses', minRole: 'admin', call: (c) => c.get(`/api/integrations/vcs/${b.vcsIntegrationId}/statuses`) },
  { name: 'POST VCS integration into project', minRole: 'admin', call: (c) => c.post('/api/integrations/vcs', { project_id: b.projectId, provider: 'github', repository: 'evil/repo' }) },
  { name: 'PATCH VCS integration', minRole: 'admin', call: (c) => c.patch(`/api/integrations/vcs/${b.vcsIntegrationId}`, { enabled: false }) },
  { name: 'DELETE VCS integration', minRole: 'admin', call: (c) => c.delete(`/api/integrations/vcs/${b.vcsIntegrationId}`) },
  { name: 'POST VCS integration rotate-secret', minRole: 'admin', call: (c) => c.post(`/api/integrations/vcs/${b.vcsIntegrationId}/rotate-secret`, { grace_hours: 0 }) },
  { name: 'GET chat integration', minRole: 'admin', call: (c) => c.get(`/api/integrations/chat/${b.chatIntegrationId}`) },
  { name: 'POST chat integration into project', minRole: 'admin', call: (c) => c.post('/api/integrations/chat', { provider: 'slack', project_id: b.projectId, signing_secret: 'e0e1e2e3e4e5e6e7e8e9f0f1f2f3f4f5' }) },
  { name: 'PATCH chat integration', minRole: 'admin', call: (c) => c.patch(`/api/integrations/chat/${b.chatIntegrationId}`, { enabled: false }) },
  { name: 'DELETE chat integration', minRole: 'admin', call: (c) => c.delete(`/api/integrations/chat/${b.chatIntegrationId}`) },
];

/** Every org-scoped endpoint, called with X-Organization-ID naming B. */
const scoped = (): Array<{ name: string; call: (c: Client) => ReturnType<Client['get']> }> => [
  { name: 'GET projects', call: (c) => c.get('/api/v1/projects') },
  { name: 'POST project', call: (c) => c.post('/api/v1/projects', { name: 'intruder' }) },
  ...byId().map(({ name, call }) => ({ name, call })),
  { name: 'GET tests', call: (c) => c.get('/api/tests') },
  { name: 'GET team', call: (c) => c.get('/api/teams') },
  { name: 'GET invitations', call: (c) => c.get('/api/teams/invitations') },
  { name: 'POST invitation', call: (c) => c.post('/api/teams/invitations', { email: 'evil@example.com', role: 'admin' }) },
  { name: 'GET api keys', call: (c) => c.get('/api/api-keys') },
  { name: 'POST api key', call: (c) => c.post('/api/api-keys', { name: 'evil', permissions: ['admin'] }) },
  { name: 'GET audit logs', call: (c) => c.get('/api/audit-logs') },
  { name: 'GET data-layer health', call: (c) => c.get('/api/v1/health/data-layer') },
  { name: 'GET healing patterns', call: (c) => c.get('/api/healing/patterns') },
  { name: 'GET healing stats', call: (c) => c.get('/api/healing/stats') },
  { name: 'GET visual baselines', call: (c) => c.get('/api/visual/baselines') },
  { name: 'GET VCS integrations', call: (c) => c.get('/api/integrations/vcs') },
  { name: 'GET chat integrations', call: (c) => c.get('/api/integrations/chat') },
];

const rank: Record<Role, number> = { viewer: 0, member: 1, admin: 2 };

describe('tenant isolation: B ids under A scope', () => {
  for (const role of ['admin', 'member', 'viewer'] as const) {
    for (const endpoint of byId()) {
      const expected = rank[role] >= rank[endpoint.minRole] ? 404 : 403;
      it(`${role} of A: ${endpoint.name} → ${expected}`, async () => {
        const res = await endpoint.call(A[role]);
        expect(res.status).toBe(expected);
        expect(res.body.error.code).toBe(expected === 404 ? 'NOT_FOUND' : 'INSUFFICIENT_ROLE');
        expect(res.text).not.toContain('B secret project');
      });
    }
  }
});

describe('tenant isolation: naming B in X-Organization-ID', () => {
  for (const role of ['admin', 'member', 'viewer'] as const) {
    for (const endpoint of scoped()) {
      it(`${role} of A: ${endpoint.name} with org B → 404`, async () => {
        const res = await endpoint.call(asB[role]);
        expect(res.status).toBe(404);
        expect(res.body.error).toEqual({ code: 'NOT_FOUND', message: 'organization not found' });
      });
    }
  }

  it('an existing foreign organization and a made-up one answer identically', async () => {
    const foreign = await A.admin.get('/api/v1/projects', { org: orgB });
    const unknown = await A.admin.get('/api/v1/projects', { org: '01900000-0000-7000-8000-000000000000' });
    expect(foreign.status).toBe(unknown.status);
    expect(foreign.body).toEqual(unknown.body);
  });

  it('an organization id is read in any case; a header that is no id at all is a 400 naming it', async () => {
    const lower = await A.admin.get('/api/v1/projects', { org: orgA });
    const upper = await A.admin.get('/api/v1/projects', { org: orgA.toUpperCase() });
    expect(upper.status).toBe(200);
    expect(upper.body).toEqual(lower.body);
    // B's id in capitals is still B's: 404, as in lower case.
    expect((await A.admin.get('/api/v1/projects', { org: orgB.toUpperCase() })).body).toEqual({ error: { code: 'NOT_FOUND', message: 'organization not found' } });
    const malformed = await A.admin.get('/api/v1/projects', { org: 'my-org' });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.details.issues).toEqual([{ path: 'X-Organization-ID', message: 'not a valid id (a UUID): the id of an organization you belong to' }]);
  });

  it("an API key of A cannot reach B's organization or resources", async () => {
    const key = await A.admin.post('/api/api-keys', { name: 'A admin key', permissions: ['admin'] });
    const withKey = client(server.url, { token: key.body.key });
    expect((await withKey.get('/api/v1/projects', { org: orgB })).status).toBe(404);
    expect((await withKey.get(`/api/v1/projects/${b.projectId}`)).status).toBe(404);
    expect((await withKey.get(`/api/tests/${b.testId}`)).status).toBe(404);
    expect((await withKey.get('/api/v1/projects')).status).toBe(200);
  });
});

describe('tenant isolation: nothing of B changed or leaked', () => {
  it("B's project, test, key, invitation and admin are intact", async () => {
    const project = await bAdmin.get(`/api/v1/projects/${b.projectId}`);
    expect(project.body.name).toBe('B secret project');
    const tests = await bAdmin.get(`/api/tests?project_id=${b.projectId}`);
    expect(tests.body.items.map((t: { name: string }) => t.name)).toEqual(['B test']);
    const keys = await bAdmin.get('/api/api-keys');
    expect(keys.body.items.find((k: { id: string }) => k.id === b.apiKeyId).revoked_at).toBeNull();
    const invitations = await bAdmin.get('/api/teams/invitations');
    expect(invitations.body.items.find((i: { id: string }) => i.id === b.invitationId).status).toBe('pending');
    const team = await bAdmin.get('/api/teams');
    expect(team.body.items).toHaveLength(1);
    expect(team.body.items[0].role).toBe('admin');
    const audit = await bAdmin.get('/api/audit-logs?limit=200');
    const actors = new Set(audit.body.items.map((l: { user_id: string }) => l.user_id));
    expect([...actors]).toEqual([b.adminUserId]);
  });

  it("B's healing pattern is unreverted and A sees no patterns", async () => {
    const patterns = await bAdmin.get('/api/healing/patterns');
    expect(patterns.body.items.map((p: { id: string; reverted_at: string | null }) => [p.id, p.reverted_at])).toEqual([[b.healingPatternId, null]]);
    expect((await A.viewer.get('/api/healing/patterns')).body.items).toEqual([]);
  });

  it("A's semantic search finds nothing of B's, while B finds its own", async () => {
    const own = await bAdmin.get('/api/quality/semantic-search?q=%23b-secret');
    expect(own.body.results.map((r: { kind: string }) => r.kind)).toContain('heal');
    const res = await A.viewer.get('/api/quality/semantic-search?q=%23b-secret%20B%20test');
    expect(res.status, res.text).toBe(200);
    expect(res.body.results).toEqual([]);
  });

  it("B's visual baseline is intact and A lists none", async () => {
    const baseline = await bAdmin.get(`/api/visual/baselines/${b.visualBaselineId}`);
    expect(baseline.body).toMatchObject({ name: 'B secret page', screenshot_hash: b.visualHash });
    expect((await A.viewer.get('/api/visual/baselines')).body.items).toEqual([]);
  });

  it("B's VCS integration is intact and A lists none", async () => {
    const integration = await bAdmin.get(`/api/integrations/vcs/${b.vcsIntegrationId}`);
    expect(integration.body).toMatchObject({ repository: 'b-org/secret-repo', enabled: true, secret_rotated_at: null });
    expect((await A.admin.get('/api/integrations/vcs')).body.items).toEqual([]);
  });

  it("B's chat integration is intact and A lists none", async () => {
    const integration = await bAdmin.get(`/api/integrations/chat/${b.chatIntegrationId}`);
    expect(integration.body).toMatchObject({ team_id: 'T0BORG', enabled: true, signing_secret_set: true });
    expect((await A.admin.get('/api/integrations/chat')).body.items).toEqual([]);
  });

  it("B's chat conversation kept its two messages", async () => {
    const history = await bAdmin.get(`/api/v1/chat/history/${b.conversationId}`);
    expect(history.status).toBe(200);
    expect(history.body.messages.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant']);
  });

  it("A's lists hold only A's data", async () => {
    for (const role of ['admin', 'member', 'viewer'] as const) {
      const projects = await A[role].get('/api/v1/projects');
      expect(projects.status).toBe(200);
      expect(projects.body.items.every((p: { organization_id: string }) => p.organization_id === orgA)).toBe(true);
      const tests = await A[role].get('/api/tests');
      expect(tests.body.items).toEqual([]);
    }
  });
});

describe('roles within one organization', () => {
  it('viewer reads but cannot write', async () => {
    expect((await A.viewer.get('/api/v1/projects')).status).toBe(200);
    const res = await A.viewer.post('/api/v1/projects', { name: 'nope' });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('INSUFFICIENT_ROLE');
    expect((await A.viewer.get('/api/v1/projects')).body.items).toEqual([]);
  });

  it('member writes projects and tests but cannot manage keys, invitations or read audit logs', async () => {
    const project = await A.member.post('/api/v1/projects', { name: 'member project' });
    expect(project.status).toBe(201);
    expect((await A.member.post('/api/tests', { project_id: project.body.id, name: 't', type: 'ui' })).status).toBe(201);
    expect((await A.member.post('/api/api-keys', { name: 'k' })).status).toBe(403);
    expect((await A.member.post('/api/teams/invitations', { email: 'q@example.com' })).status).toBe(403);
    expect((await A.member.get('/api/audit-logs')).status).toBe(403);
  });

  it('admin does all of it, and every mutation is in the audit log', async () => {
    expect((await A.admin.get('/api/audit-logs')).status).toBe(200);
    const audit = await A.admin.get('/api/audit-logs?limit=200');
    const actions = audit.body.items.map((l: { action: string }) => l.action);
    for (const action of ['user.signup', 'invitation.create', 'invitation.accept', 'project.create', 'test.create', 'api_key.create']) {
      expect(actions).toContain(action);
    }
  });
});
