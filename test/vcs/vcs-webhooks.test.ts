/**
 * Source-control webhooks end to end on the local runtime: an admin links a repository to
 * a project, and GitHub's push and pull_request deliveries (the hosts' own payloads and
 * headers, signed over the raw bytes) start real runs through the run graph that execute
 * the project's tests against a tiny app, which counts the requests. Also: the ping,
 * refused signatures, an unknown repository, duplicates, branch filters, pausing, the
 * delivery log, the audit log, a GitLab push, and who may manage integrations.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventEnvelope } from '@svc/core/contracts/events';
import { client, runEnded, signUp, type Client } from '../support/server.ts';
import { startRunGraphServer } from '../run-graph/support/api-server.ts';
import { apiTest, startTarget, type Target } from '../run-graph/support/target.ts';
import { deliverGithub, deliverGitlab, githubPing, githubPullRequest, githubPush, gitlabPush } from './support/hosts.ts';
import type { InProcessBus } from '@svc/core/events/in-process-bus';

let server: Awaited<ReturnType<typeof startRunGraphServer>>;
let target: Target;
let api: Client;
let orgId: string;
let projectId: string;
let integration: { id: string; secret: string };
const published: EventEnvelope[] = [];

const SMOKE = '/ok?id=smoke';
const OTHER = '/ok?id=other';

beforeAll(async () => {
  target = await startTarget();
  server = await startRunGraphServer();
  const owner = await signUp(server.url, 'vcs-admin@example.com');
  orgId = owner.orgId;
  api = client(server.url, { token: owner.token, org: owner.orgId });
  projectId = (await api.post('/api/v1/projects', { name: 'shop', app_url: target.url })).body.id;
  for (const [name, path, tags] of [['smoke', SMOKE, ['smoke']], ['other', OTHER, []]] as const) {
    const created = await api.post('/api/tests', { ...apiTest(name, path), project_id: projectId, description: undefined, tags });
    expect(created.status, created.text).toBe(201);
  }
  (server.runtime.deps.publisher as InProcessBus).subscribe((e) => void published.push(e));
});
afterAll(async () => {
  await server?.stop();
  await target?.stop();
});

const finished = (runId: string) => runEnded(api, runId, 30_000);

/** The run's graph state at its newest checkpoint (changed_files, pr_number). */
async function stateOf(threadId: string) {
  const history = await api.get(`/api/v1/time-travel/history/${threadId}?limit=1`);
  const newest = history.body.items[0];
  return (await api.get(`/api/v1/time-travel/state/${threadId}/${newest.checkpoint_id}`)).body.state;
}

const runsOfProject = async () => (await server.runtime.deps.store.testRuns.listForProject(projectId, 200)).items.length;
const push = (branch: string, commits: Parameters<typeof githubPush>[2] = [{ added: ['src/cart.ts'], modified: ['src/checkout.ts'] }], opts = {}) => githubPush('acme/shop', branch, commits, opts);

describe('setting up', () => {
  it('creates an integration; its secret is shown once and never again', async () => {
    const res = await api.post('/api/integrations/vcs', { project_id: projectId, provider: 'github', repository: 'Acme/Shop', tags: ['smoke'] });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ project_id: projectId, provider: 'github', repository: 'Acme/Shop', events: ['push', 'pull_request'], branches: [], tags: ['smoke'], healing_enabled: null, enabled: true, webhook_path: '/webhooks/vcs' });
    expect(res.body.secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    integration = { id: res.body.id, secret: res.body.secret };
    const one = await api.get(`/api/integrations/vcs/${integration.id}`);
    const list = await api.get(`/api/integrations/vcs?project_id=${projectId}`);
    expect(one.status).toBe(200);
    expect(list.body.items.map((i: { id: string }) => i.id)).toEqual([integration.id]);
    for (const text of [one.text, list.text]) {
      expect(text).not.toContain(integration.secret);
      expect(text).not.toContain('"secret"');
    }
  });

  it("answers GitHub's ping: the signature is right and nothing runs", async () => {
    const before = await runsOfProject();
    const res = await deliverGithub(server.url, 'ping', githubPing('acme/shop', `${server.url}/webhooks/vcs`), { secret: integration.secret });
    expect(res.status, res.text).toBe(202);
    expect(res.body).toMatchObject({ delivery_id: res.deliveryId, event: 'ping', runs: [], ignored: expect.stringMatching(/^ping: .*secret is right/) });
    expect(await runsOfProject()).toBe(before);
  });
});

describe('a push', () => {
  it('starts a run (trigger vcs) focused on the changed files, which executes the tagged tests', async () => {
    const hits = target.hits(SMOKE);
    const res = await deliverGithub(server.url, 'push', push('main', [{ added: ['src/cart.ts'], modified: ['src/checkout.ts'] }, { modified: ['src/checkout.ts'], removed: ['src/legacy.ts'] }]), { secret: integration.secret });
    expect(res.status, res.text).toBe(202);
    expect(res.body.runs).toEqual([{ run_id: expect.any(String), project_id: projectId }]);
    expect(res.body.message).toMatch(/focused on 3 changed files/);
    const run = await finished(res.body.runs[0].run_id);
    expect(run).toMatchObject({ status: 'completed', trigger: 'vcs', thread_id: `vcs-${integration.id}-${res.deliveryId}`, total_tests: 1, passed_tests: 1 });
    expect(target.hits(SMOKE)).toBe(hits + 1); // the run really requested the app
    expect(target.hits(OTHER)).toBe(0); // only the tagged test
    const state = await stateOf(run.thread_id);
    expect(state.changed_files).toEqual(['src/cart.ts', 'src/checkout.ts', 'src/legacy.ts']);
    expect(state.pr_number).toBeNull();
  });

  it('runs once for a delivery id that comes twice', async () => {
    const payload = push('main');
    const first = await deliverGithub(server.url, 'push', payload, { secret: integration.secret });
    expect(first.status, first.text).toBe(202);
    const before = await runsOfProject();
    const again = await deliverGithub(server.url, 'push', payload, { secret: integration.secret, deliveryId: first.deliveryId });
    expect(again.status, again.text).toBe(202);
    expect(again.body).toMatchObject({ duplicate: true, runs: first.body.runs });
    expect(await runsOfProject()).toBe(before);
    await finished(first.body.runs[0].run_id);
  });

  it('runs once when the same delivery arrives three times at once', async () => {
    const payload = push('main');
    const deliveryId = crypto.randomUUID();
    const before = await runsOfProject();
    const answers = await Promise.all([1, 2, 3].map(() => deliverGithub(server.url, 'push', payload, { secret: integration.secret, deliveryId })));
    expect(answers.map((a) => a.status)).toEqual([202, 202, 202]);
    const runIds = new Set(answers.flatMap((a) => a.body.runs.map((r: { run_id: string }) => r.run_id)));
    expect(runIds.size).toBe(1);
    expect(await runsOfProject()).toBe(before + 1);
    await finished([...runIds][0]);
  });

  it('branch filters: the default branch only, until branches are listed', async () => {
    const before = await runsOfProject();
    const feature = await deliverGithub(server.url, 'push', push('feature/cart'), { secret: integration.secret });
    expect(feature.status).toBe(202);
    expect(feature.body).toMatchObject({ runs: [], ignored: 'branch feature/cart is not the default branch main (list branches on the integration to run on others)' });
    expect(await runsOfProject()).toBe(before);

    const changed = await api.patch(`/api/integrations/vcs/${integration.id}`, { branches: ['release/*'] });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body.branches).toEqual(['release/*']);
    const main = await deliverGithub(server.url, 'push', push('main'), { secret: integration.secret });
    expect(main.body).toMatchObject({ runs: [], ignored: 'branch main matches none of release/*' });
    const release = await deliverGithub(server.url, 'push', push('release/2.1'), { secret: integration.secret });
    expect(release.body.runs).toHaveLength(1);
    expect(await finished(release.body.runs[0].run_id)).toMatchObject({ status: 'completed', trigger: 'vcs' });
    await api.patch(`/api/integrations/vcs/${integration.id}`, { branches: [] });
  });

  it('tags, deleted branches and unhandled events are answered with the reason', async () => {
    const tag = { ...push('main'), ref: 'refs/tags/v1.0.0' };
    expect((await deliverGithub(server.url, 'push', tag, { secret: integration.secret })).body.ignored).toBe('refs/tags/v1.0.0 is not a branch (tags do not start runs)');
    expect((await deliverGithub(server.url, 'push', push('main', [], { deleted: true }), { secret: integration.secret })).body.ignored).toBe('the branch was deleted');
    const issues = await deliverGithub(server.url, 'issues', { action: 'opened', issue: { number: 1 }, repository: githubPush('acme/shop', 'main', []).repository }, { secret: integration.secret });
    expect(issues.status).toBe(202);
    expect(issues.body).toMatchObject({ event: 'issues', runs: [], ignored: 'svc does not run tests on issues events' });
  });
});

describe('a pull request', () => {
  it('opened: a run with the pull request number, and integration.vcs.pr on the bus', async () => {
    const hits = target.hits(SMOKE);
    const res = await deliverGithub(server.url, 'pull_request', githubPullRequest('acme/shop', 'opened', 42), { secret: integration.secret });
    expect(res.status, res.text).toBe(202);
    expect(res.body.event).toBe('pull_request.opened');
    const run = await finished(res.body.runs[0].run_id);
    expect(run).toMatchObject({ status: 'completed', trigger: 'vcs', passed_tests: 1 });
    expect(target.hits(SMOKE)).toBe(hits + 1);
    const state = await stateOf(run.thread_id);
    expect(state.pr_number).toBe(42);
    expect(state.changed_files).toEqual([]); // the payload lists no files; svc does not call GitHub's API
    const event = published.find((e) => e.event_type === 'integration.vcs.pr');
    expect(event).toMatchObject({ source: 'svc.webhooks', tenant_id: orgId, payload: { provider: 'github', repository: 'Acme/Shop', pr_number: 42, action: 'opened', base_ref: 'main', head_ref: 'feature/cart', project_id: projectId } });
  });

  it('closed: nothing runs', async () => {
    const res = await deliverGithub(server.url, 'pull_request', githubPullRequest('acme/shop', 'closed', 42), { secret: integration.secret });
    expect(res.body).toMatchObject({ runs: [], ignored: 'pull request closed: only opened, synchronize, reopened start runs' });
  });
});

describe('refused', () => {
  it('a wrong or missing signature: 401 and no run; an unknown repository answers the same', async () => {
    const before = await runsOfProject();
    const wrong = await deliverGithub(server.url, 'push', push('main'), { secret: 'whsec_not-the-secret' });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error.code).toBe('INVALID_SIGNATURE');
    const missing = await deliverGithub(server.url, 'push', push('main'), { secret: null });
    expect(missing.status).toBe(401);
    expect(missing.body.error).toEqual({ code: 'INVALID_SIGNATURE', message: expect.stringMatching(/X-Hub-Signature-256 is missing/) });
    const garbage = await deliverGithub(server.url, 'push', push('main'), { secret: null, signature: 'sha256=zz' });
    expect(garbage.status).toBe(401);
    // Signed with the right secret, but for a repository no integration has: the same answer as a wrong secret.
    const unknown = await deliverGithub(server.url, 'push', githubPush('acme/elsewhere', 'main', [{ added: ['x'] }]), { secret: integration.secret });
    expect(unknown.status).toBe(401);
    expect(unknown.body).toEqual(wrong.body);
    expect(await runsOfProject()).toBe(before);
  });

  it('what is not a delivery gets a clear error', async () => {
    const form = await deliverGithub(server.url, 'push', push('main'), { secret: integration.secret, contentType: 'application/x-www-form-urlencoded' });
    expect(form.status).toBe(415);
    expect(form.body.error.message).toMatch(/content type to application\/json/);
    const noEvent = await fetch(`${server.url}/webhooks/vcs`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(noEvent.status).toBe(400);
    expect((await noEvent.json()).error.message).toMatch(/X-GitHub-Event/);
    const notJson = await fetch(`${server.url}/webhooks/vcs`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-github-event': 'push', 'x-github-delivery': 'd-1', 'x-hub-signature-256': 'sha256=00' }, body: '{"ref":' });
    expect(notJson.status).toBe(400);
    expect((await notJson.json()).error.code).toBe('MALFORMED_JSON');
    // GitHub sends nothing above 25 MB; the route's limit is that, below the server's 100 MB.
    const huge = await fetch(`${server.url}/webhooks/vcs`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-github-event': 'push', 'x-github-delivery': 'd-2', 'x-hub-signature-256': 'sha256=00' }, body: Buffer.alloc(25 * 1024 * 1024 + 1, 0x20) });
    expect(huge.status).toBe(413);
    expect((await huge.json()).error).toEqual({ code: 'PAYLOAD_TOO_LARGE', message: 'request body exceeds 26214400 bytes' });
  });

  it('a paused integration ignores deliveries', async () => {
    expect((await api.patch(`/api/integrations/vcs/${integration.id}`, { enabled: false })).body.enabled).toBe(false);
    const before = await runsOfProject();
    const res = await deliverGithub(server.url, 'push', push('main'), { secret: integration.secret });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ runs: [], ignored: 'the integration is paused' });
    expect(await runsOfProject()).toBe(before);
    await api.patch(`/api/integrations/vcs/${integration.id}`, { enabled: true });
  });
});

describe('the record', () => {
  it('the delivery log keeps each outcome, newest first', async () => {
    const res = await api.get(`/api/integrations/vcs/${integration.id}/deliveries?limit=100`);
    expect(res.status, res.text).toBe(200);
    const items = res.body.items as Array<{ id: string; outcome: string; event: string; run_id: string | null; reason: string | null; branch: string | null; changed_files: number | null; pr_number: number | null; commit_sha: string | null; pusher: string | null }>;
    expect(new Set(items.map((d) => d.outcome))).toEqual(new Set(['started', 'ignored', 'duplicate', 'rejected']));
    expect([...items.map((d) => d.id)].sort().reverse()).toEqual(items.map((d) => d.id));
    const started = items.filter((d) => d.outcome === 'started');
    expect(started.find((d) => d.changed_files === 3)).toMatchObject({ event: 'push', branch: 'main', pusher: 'octocat', run_id: expect.any(String), commit_sha: expect.stringMatching(/^[0-9a-f]{40}$/) });
    expect(started.find((d) => d.event === 'pull_request.opened')).toMatchObject({ pr_number: 42, branch: 'feature/cart', changed_files: null });
    expect(items.find((d) => d.outcome === 'rejected')).toMatchObject({ event: 'push', run_id: null, reason: expect.stringMatching(/signature/) });
    expect(items.find((d) => d.outcome === 'ignored' && d.event === 'ping')).toBeDefined();
  });

  it('the audit log names the changes and the runs the webhooks started', async () => {
    const audit = (await api.get('/api/audit-logs?limit=200')).body.items as Array<{ action: string; user_id: string; metadata: Record<string, unknown> }>;
    for (const action of ['vcs_integration.create', 'vcs_integration.update']) expect(audit.map((a) => a.action)).toContain(action);
    const runs = audit.filter((a) => a.action === 'test_run.start' && a.metadata.trigger === 'vcs');
    expect(runs.length).toBeGreaterThanOrEqual(3);
    expect(runs[0]).toMatchObject({ user_id: `vcs:${integration.id}`, metadata: { integration_id: integration.id, delivery_id: expect.any(String), project_id: projectId } });
  });
});

describe('GitLab', () => {
  it('a push hook with the secret token starts a run focused on its files', async () => {
    const created = await api.post('/api/integrations/vcs', { project_id: projectId, provider: 'gitlab', repository: 'acme/web/shop', events: ['push'], healing_enabled: false });
    expect(created.status, created.text).toBe(201);
    const hits = target.hits(SMOKE) + target.hits(OTHER);
    const res = await deliverGitlab(server.url, 'Push Hook', gitlabPush('acme/web/shop', 'main', [{ modified: ['app/models/cart.rb'] }]), created.body.secret);
    expect(res.status, res.text).toBe(202);
    const run = await finished(res.body.runs[0].run_id);
    expect(run).toMatchObject({ status: 'completed', trigger: 'vcs', total_tests: 2, passed_tests: 2 }); // no tags: every test
    expect(target.hits(SMOKE) + target.hits(OTHER)).toBe(hits + 2);
    const state = await stateOf(run.thread_id);
    expect(state.changed_files).toEqual(['app/models/cart.rb']);
    expect(state.graph.config.healing_enabled).toBe(false);
    const wrong = await deliverGitlab(server.url, 'Push Hook', gitlabPush('acme/web/shop', 'main', [{ modified: ['x'] }]), 'not-the-token');
    expect(wrong.status).toBe(401);
  });
});

describe('who may', () => {
  it('bad input names the field', async () => {
    for (const [body, field] of [
      [{ project_id: projectId, provider: 'bitbucket', repository: 'acme/shop' }, 'provider'],
      [{ project_id: projectId, provider: 'github', repository: 'acme' }, 'repository'],
      [{ project_id: projectId, provider: 'github', repository: 'acme/web/shop' }, 'repository'],
      [{ project_id: projectId, provider: 'github', repository: 'acme/shop', events: ['issues'] }, 'events.0'],
      [{ project_id: projectId, provider: 'github', repository: 'acme/shop', branches: ['has space'] }, 'branches.0'],
      [{ project_id: projectId, provider: 'github', repository: 'acme/shop', secret: 'mine' }, 'secret'],
    ] as const) {
      const res = await api.post('/api/integrations/vcs', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.details.issues.map((i: { path: string }) => i.path), JSON.stringify(body)).toContain(field);
    }
  });

  it('members and API keys get 403; another organization gets 404', async () => {
    const invite = await api.post('/api/teams/invitations', { email: 'vcs-member@example.com', role: 'member' });
    const member = await signUp(server.url, 'vcs-member@example.com');
    expect((await client(server.url, { token: member.token }).post('/api/teams/invitations/accept', { token: invite.body.token })).status).toBe(200);
    const asMember = client(server.url, { token: member.token, org: orgId });
    expect((await asMember.get('/api/integrations/vcs')).status).toBe(403);
    expect((await asMember.get(`/api/integrations/vcs/${integration.id}/deliveries`)).status).toBe(403);
    expect((await asMember.post('/api/integrations/vcs', { project_id: projectId, provider: 'github', repository: 'acme/shop' })).status).toBe(403);

    const key = await api.post('/api/api-keys', { name: 'ci', permissions: ['admin'] });
    expect(key.status, key.text).toBe(201);
    const withKey = client(server.url, { token: key.body.key });
    const refused = await withKey.get('/api/integrations/vcs');
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('FORBIDDEN');
    expect((await withKey.patch(`/api/integrations/vcs/${integration.id}`, { enabled: false })).status).toBe(403);

    const other = await signUp(server.url, 'vcs-stranger@example.com');
    const stranger = client(server.url, { token: other.token, org: other.orgId });
    expect((await stranger.post('/api/integrations/vcs', { project_id: projectId, provider: 'github', repository: 'acme/shop' })).status).toBe(404);
    for (const res of [
      await stranger.get(`/api/integrations/vcs/${integration.id}`),
      await stranger.patch(`/api/integrations/vcs/${integration.id}`, { enabled: false }),
      await stranger.get(`/api/integrations/vcs/${integration.id}/deliveries`),
      await stranger.delete(`/api/integrations/vcs/${integration.id}`),
      await stranger.get(`/api/integrations/vcs?project_id=${projectId}`),
    ]) expect(res.status).toBe(404);
    expect((await stranger.get('/api/integrations/vcs')).body.items).toEqual([]);
    expect((await api.get(`/api/integrations/vcs/${integration.id}`)).body.enabled).toBe(true);
  });

  it('delete: its webhooks are refused from then on', async () => {
    expect((await api.delete(`/api/integrations/vcs/${integration.id}`)).status).toBe(204);
    expect((await api.get(`/api/integrations/vcs/${integration.id}`)).status).toBe(404);
    const res = await deliverGithub(server.url, 'push', push('main'), { secret: integration.secret });
    expect(res.status).toBe(401);
    const audit = (await api.get('/api/audit-logs?limit=200')).body.items.map((a: { action: string }) => a.action);
    expect(audit).toContain('vcs_integration.delete');
  });
});
