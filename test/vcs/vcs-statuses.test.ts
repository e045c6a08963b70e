/**
 * Commit statuses end to end on the local runtime: an admin gives an integration a token
 * and an API URL pointing at a host double on 127.0.0.1 (GitHub's and GitLab's status APIs
 * in their wire format, checking the token), a signed push webhook starts a real run, and
 * the double receives pending (GitLab running) and then the outcome for the pushed commit,
 * linking to the run's report. Also: a failing test, the outcome against the previous run
 * (a new failure, one already failing, one fixed), a cancelled run, a host that answers
 * 500 then 201 (retried and logged), 401 (logged once, not retried), no token (nothing
 * posted), the token never shown or logged, PATCH null removes it, bad input names its
 * field, another organization 404, API keys 403.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { client, signUp, type Client } from '../support/server.ts';
import { startRunGraphServer } from '../run-graph/support/api-server.ts';
import { apiTest, startTarget, type Target } from '../run-graph/support/target.ts';
import { deliverGithub, deliverGitlab, githubPush, gitlabPush } from './support/hosts.ts';
import { startStatusHost, type StatusHost } from './support/status-host.ts';

const GITHUB_TOKEN = 'github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUV7Zq9';
const GITLAB_TOKEN = 'glpat-Xy12abCD34efGH56ijKL';
const PUBLIC_URL = 'https://svc.example.com';

let server: Awaited<ReturnType<typeof startRunGraphServer>>;
let target: Target;
let host: StatusHost;
let api: Client;
let orgId: string;
let projectId: string;
let github: { id: string; secret: string };
const logged: string[] = [];

beforeAll(async () => {
  // Everything the server logs, to show the token is never in it (warnings name the host's answer).
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write.bind(stream);
    vi.spyOn(stream, 'write').mockImplementation(((chunk: string | Uint8Array, ...rest: unknown[]) => {
      logged.push(String(chunk));
      return (write as (...a: unknown[]) => boolean)(chunk, ...rest);
    }) as typeof stream.write);
  }
  target = await startTarget();
  host = await startStatusHost({ github: GITHUB_TOKEN, gitlab: GITLAB_TOKEN });
  server = await startRunGraphServer({ env: { SVC_PUBLIC_URL: `${PUBLIC_URL}/`, SVC_LOG_LEVEL: 'DEBUG' } });
  const owner = await signUp(server.url, 'vcs-status-admin@example.com');
  orgId = owner.orgId;
  api = client(server.url, { token: owner.token, org: owner.orgId });
  projectId = (await api.post('/api/v1/projects', { name: 'shop', app_url: target.url })).body.id;
  for (const [name, path, tags] of [['cart', '/ok?id=cart', ['passing']], ['checkout', '/fail', ['failing']], ['held', '/gate', ['held']]] as const) {
    const created = await api.post('/api/tests', { ...apiTest(name, path), description: undefined, project_id: projectId, tags });
    expect(created.status, created.text).toBe(201);
  }
});
afterAll(async () => {
  vi.restoreAllMocks();
  await server?.stop();
  await target?.stop();
  await host?.stop();
});

/** Pushes one commit to main; returns the commit and the run it started, once the run and its hooks are done. */
async function pushAndFinish(secret: string, opts: { until?: 'started' } = {}) {
  const payload = githubPush('acme/shop', 'main', [{ modified: ['src/cart.ts'] }]);
  const res = await deliverGithub(server.url, 'push', payload, { secret });
  expect(res.status, res.text).toBe(202);
  const runId = res.body.runs[0].run_id as string;
  const threadId = `vcs-${github.id}-${res.deliveryId}`;
  if (opts.until !== 'started') await server.graph.settled(threadId); // the execution ended: report and its hooks are done
  return { sha: payload.after, runId, threadId };
}

const statusesOf = async (integrationId: string) => (await api.get(`/api/integrations/vcs/${integrationId}/statuses`)).body.items as Array<Record<string, any>>;
const runOf = async (runId: string) => (await api.get(`/api/v1/test/status/${runId}`)).body.run;

describe('setting the token', () => {
  it('takes a token, an API URL and a context on create; the token is never shown again, only that it is set and its hint', async () => {
    const res = await api.post('/api/integrations/vcs', { project_id: projectId, provider: 'github', repository: 'acme/shop', tags: ['passing'], status_token: GITHUB_TOKEN, api_url: `${host.url}/` });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ status_token_set: true, status_token_hint: `github_pat_…${GITHUB_TOKEN.slice(-4)}`, api_url: host.url, status_context: 'svc' });
    github = { id: res.body.id, secret: res.body.secret };
    const one = await api.get(`/api/integrations/vcs/${github.id}`);
    const list = await api.get('/api/integrations/vcs');
    for (const text of [res.text, one.text, list.text]) {
      expect(text).not.toContain(GITHUB_TOKEN);
      expect(text).not.toContain('"status_token"');
    }
    expect(one.body).toMatchObject({ status_token_set: true, api_url: host.url });
  });

  it('refuses bad input naming the field', async () => {
    for (const [body, field] of [
      [{ api_url: 'ftp://github.example.com' }, 'api_url'],
      [{ api_url: 'https://github.example.com/api/v3?token=x' }, 'api_url'],
      [{ api_url: 'https://user:pass@github.example.com/api/v3' }, 'api_url'],
      [{ status_token: 'ghp_with a space in it' }, 'status_token'],
      [{ status_token: 'short' }, 'status_token'],
      [{ status_context: '' }, 'status_context'],
    ] as const) {
      const res = await api.patch(`/api/integrations/vcs/${github.id}`, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.text, JSON.stringify(body)).toContain(field);
    }
    const created = await api.post('/api/integrations/vcs', { project_id: projectId, provider: 'github', repository: 'acme/other', api_url: 'not a url' });
    expect(created.status).toBe(400);
    expect(created.text).toContain('api_url');
  });
});

describe('a push to GitHub', () => {
  it('sets pending, then success, on the pushed commit, with the token, the API version, the context and a link to the report', async () => {
    const { sha, runId } = await pushAndFinish(github.secret);
    expect((await runOf(runId)).status).toBe('completed');
    const posted = host.of(sha);
    expect(posted.map((p) => p.body.state)).toEqual(['pending', 'success']);
    for (const p of posted) {
      expect(p).toMatchObject({ host: 'github', path: `/repos/acme/shop/statuses/${sha}`, answered: 201 });
      expect(p.headers).toMatchObject({ authorization: `Bearer ${GITHUB_TOKEN}`, accept: 'application/vnd.github+json', 'x-github-api-version': '2022-11-28', 'content-type': 'application/json' });
      expect(p.body).toMatchObject({ context: 'svc', target_url: `${PUBLIC_URL}/api/reports/${runId}?format=html` });
    }
    expect(posted[0].body.description).toBe('svc is running 1 test');
    expect(posted[1].body.description).toBe('1 passed');
    const log = await statusesOf(github.id);
    expect(log.slice(0, 2)).toMatchObject([
      { run_id: runId, commit_sha: sha, state: 'success', description: '1 passed', status: 'delivered', attempts: 1, http_status: 201, error: null },
      { run_id: runId, commit_sha: sha, state: 'pending', status: 'delivered', attempts: 1, http_status: 201 },
    ]);
    // The link is the run's HTML report on this server.
    const report = await api.get(`/api/reports/${runId}?format=html`);
    expect(report.status).toBe(200);
    expect(report.headers.get('content-type')).toMatch(/text\/html/);
  });

  it('sets failure when a test fails, with the counts', async () => {
    expect((await api.patch(`/api/integrations/vcs/${github.id}`, { tags: ['passing', 'failing'], status_context: 'e2e/svc' })).status).toBe(200);
    const { sha } = await pushAndFinish(github.secret);
    const posted = host.of(sha);
    expect(posted.map((p) => [p.body.state, p.body.description, p.body.context])).toEqual([
      ['pending', 'svc is running 2 tests', 'e2e/svc'],
      // checkout was not in the previous push's run: a failing new test, not a new failure
      ['failure', '1 passed, 1 failed (1 new test)', 'e2e/svc'],
    ]);
  });

  it('says which failures are new, which were already failing and what got fixed against the previous run', async () => {
    const flaky = await api.post('/api/tests', { ...apiTest('payment', '/flaky'), description: undefined, project_id: projectId, tags: ['flaky'] });
    expect(flaky.status, flaky.text).toBe(201);
    expect((await api.patch(`/api/integrations/vcs/${github.id}`, { tags: ['passing', 'failing', 'flaky'] })).status).toBe(200);
    const described = async () => {
      const { sha } = await pushAndFinish(github.secret);
      return host.of(sha).at(-1)!.body;
    };
    try {
      target.setBroken(false);
      // vs the previous push (cart passed, checkout failed): payment is a new test, and passes
      expect(await described()).toMatchObject({ state: 'failure', description: '2 passed, 1 failed (1 already failing)' });
      target.setBroken(true);
      expect(await described()).toMatchObject({ state: 'failure', description: '1 passed, 2 failed (1 new, 1 already failing)' });
      target.setBroken(false);
      expect(await described()).toMatchObject({ state: 'failure', description: '2 passed, 1 failed (1 already failing) · 1 fixed' });
    } finally {
      target.setBroken(true);
    }
  });

  it('sets error when the run is cancelled', async () => {
    expect((await api.patch(`/api/integrations/vcs/${github.id}`, { tags: ['held'] })).status).toBe(200);
    target.closeGate();
    const { sha, runId, threadId } = await pushAndFinish(github.secret, { until: 'started' });
    for (const deadline = Date.now() + 30_000; !host.of(sha).length; await new Promise((r) => setTimeout(r, 50))) {
      if (Date.now() > deadline) throw new Error('no pending status');
    }
    expect((await api.post(`/api/v1/test/cancel/${runId}`)).status).toBe(200);
    target.openGate();
    await server.graph.settled(threadId);
    expect(host.of(sha).map((p) => [p.body.state, p.body.description])).toEqual([
      ['pending', 'svc is running 1 test'],
      ['error', 'the run was cancelled'],
    ]);
    expect((await api.patch(`/api/integrations/vcs/${github.id}`, { tags: ['passing'] })).status).toBe(200);
  });

  it('a host answering 500 then 201 is tried again, per the notification delivery rules, and logged', async () => {
    host.answerNext(500);
    const { sha, runId } = await pushAndFinish(github.secret);
    expect(host.of(sha).map((p) => [p.body.state, p.answered])).toEqual([['pending', 500], ['pending', 201], ['success', 201]]);
    const log = (await statusesOf(github.id)).filter((s) => s.run_id === runId);
    expect(log).toMatchObject([
      { state: 'success', status: 'delivered', attempts: 1 },
      { state: 'pending', status: 'delivered', attempts: 2, http_status: 201, error: null },
    ]);
  });

  it('a host refusing the token (401) is logged with its answer and not tried again; the run completes', async () => {
    host.answerNext(401, 401);
    const { sha, runId } = await pushAndFinish(github.secret);
    expect((await runOf(runId)).status).toBe('completed');
    expect(host.of(sha).map((p) => p.answered)).toEqual([401, 401]);
    const log = (await statusesOf(github.id)).filter((s) => s.run_id === runId);
    expect(log).toHaveLength(2);
    for (const entry of log) expect(entry).toMatchObject({ status: 'failed', attempts: 1, http_status: 401, error: expect.stringContaining('Bad credentials') });
    expect(logged.join('')).toContain('a commit status was not posted');
  });

  it('PATCH status_token null removes the token: nothing is posted, as without one', async () => {
    const res = await api.patch(`/api/integrations/vcs/${github.id}`, { status_token: null });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ status_token_set: false, status_token_hint: null });
    const before = host.received.length;
    const { runId } = await pushAndFinish(github.secret);
    expect((await runOf(runId)).status).toBe('completed');
    expect(host.received.length).toBe(before);
    expect((await statusesOf(github.id)).some((s) => s.run_id === runId)).toBe(false);
  });

  it('never logs the token', () => {
    expect(logged.length).toBeGreaterThan(0);
    expect(logged.join('')).not.toContain(GITHUB_TOKEN);
    expect(logged.join('')).not.toContain(GITLAB_TOKEN);
  });
});

describe('a push to GitLab', () => {
  it('sets running, then success, through the projects API with PRIVATE-TOKEN and the status name', async () => {
    const created = await api.post('/api/integrations/vcs', { project_id: projectId, provider: 'gitlab', repository: 'acme/web/shop', events: ['push'], tags: ['passing'], status_token: GITLAB_TOKEN, api_url: host.url, status_context: 'svc/e2e' });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({ status_token_set: true, status_token_hint: `glpat-…${GITLAB_TOKEN.slice(-4)}` });
    const payload = gitlabPush('acme/web/shop', 'main', [{ modified: ['app/models/cart.rb'] }]);
    const res = await deliverGitlab(server.url, 'Push Hook', payload, created.body.secret);
    expect(res.status, res.text).toBe(202);
    const runId = res.body.runs[0].run_id;
    await server.graph.settled(`vcs-${created.body.id}-${res.deliveryId}`);
    const posted = host.of(payload.after);
    expect(posted.map((p) => [p.body.state, p.body.description])).toEqual([['running', 'svc is running 1 test'], ['success', '1 passed']]);
    for (const p of posted) {
      expect(p).toMatchObject({ host: 'gitlab', path: `/api/v4/projects/acme%2Fweb%2Fshop/statuses/${payload.after}`, repository: 'acme/web/shop', answered: 201 });
      expect(p.headers['private-token']).toBe(GITLAB_TOKEN);
      expect(p.headers.authorization).toBeUndefined();
      expect(p.body).toMatchObject({ name: 'svc/e2e', target_url: `${PUBLIC_URL}/api/reports/${runId}?format=html` });
      expect(p.body.context).toBeUndefined();
    }
  });
});

describe('who may see it', () => {
  it('API keys get 403 and another organization 404 on the status log', async () => {
    const key = await api.post('/api/api-keys', { name: 'ci', permissions: ['admin'] });
    expect(key.status, key.text).toBe(201);
    expect((await client(server.url, { token: key.body.key }).get(`/api/integrations/vcs/${github.id}/statuses`)).status).toBe(403);
    const other = await signUp(server.url, 'vcs-status-stranger@example.com');
    const stranger = client(server.url, { token: other.token, org: other.orgId });
    expect((await stranger.get(`/api/integrations/vcs/${github.id}/statuses`)).status).toBe(404);
    expect((await stranger.patch(`/api/integrations/vcs/${github.id}`, { status_token: 'ghp_0123456789abcdef' })).status).toBe(404);
    expect(orgId).not.toBe(other.orgId);
  });
});
