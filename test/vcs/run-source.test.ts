/**
 * Runs know where their code came from, and a pull request is compared with its target
 * branch: signed GitHub deliveries (and API callers passing `source`) start real runs of a
 * tiny app's JSON API through the run graph; GET /api/runs/{id}/compare then picks the
 * default base by the run's source and says which rule chose it (base_rule).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, runEnded, signUp, type Client } from '../support/server.ts';
import { startRunGraphServer } from '../run-graph/support/api-server.ts';
import { apiTest, startTarget, type Target } from '../run-graph/support/target.ts';
import { deliverGithub, githubPullRequest, githubPush } from './support/hosts.ts';

let server: Awaited<ReturnType<typeof startRunGraphServer>>;
let target: Target;
let api: Client;
let projectId: string;
let testId: string;
let secret: string;

beforeAll(async () => {
  target = await startTarget();
  server = await startRunGraphServer();
  const owner = await signUp(server.url, 'vcs-source@example.com');
  api = client(server.url, { token: owner.token, org: owner.orgId });
  projectId = (await api.post('/api/v1/projects', { name: 'shop', app_url: target.url })).body.id;
  const created = await api.post('/api/tests', { ...apiTest('smoke', '/ok?id=smoke'), project_id: projectId, description: undefined });
  expect(created.status, created.text).toBe(201);
  testId = created.body.id;
  // Pushes to main and pull requests into main or release/* start runs.
  const res = await api.post('/api/integrations/vcs', { project_id: projectId, provider: 'github', repository: 'acme/shop', branches: ['main', 'release/*'] });
  expect(res.status, res.text).toBe(201);
  secret = res.body.secret;
});
afterAll(async () => {
  await server?.stop();
  await target?.stop();
});

const finished = (runId: string) => runEnded(api, runId, 30_000);

/** Delivers a signed GitHub event and waits for the run it started to finish. */
async function delivered(event: 'push' | 'pull_request', payload: unknown) {
  const res = await deliverGithub(server.url, event, payload, { secret });
  expect(res.status, res.text).toBe(202);
  expect(res.body.runs, res.text).toHaveLength(1);
  return finished(res.body.runs[0].run_id);
}

/** Starts a run over the API and waits for it to finish. */
async function started(body: Record<string, unknown>) {
  const res = await api.post('/api/v1/test/run', { project_id: projectId, test_ids: [testId], ...body });
  expect(res.status, res.text).toBe(201);
  return finished(res.body.run.id);
}

async function baseOf(runId: string) {
  const res = await api.get(`/api/runs/${runId}/compare`);
  expect(res.status, res.text).toBe(200);
  return { base_run_id: res.body.base_run_id, base_rule: res.body.base_rule };
}

const pr = (number: number, head: string, base: string) => githubPullRequest('acme/shop', 'opened', number, head, base);

const ids: Record<string, string> = {};

describe('webhook runs', () => {
  it("a project's first run, a pull request into release/1, has no base", async () => {
    const run = await delivered('pull_request', pr(7, 'feature/a', 'release/1'));
    ids.pr7 = run.id;
    expect(run.source).toEqual({ provider: 'github', repository: 'acme/shop', branch: 'feature/a', commit_sha: expect.stringMatching(/^[0-9a-f]{40}$/), pull_request: { number: 7, base_branch: 'release/1' } });
    expect(await baseOf(run.id)).toEqual({ base_run_id: null, base_rule: null });
  });

  it('a push run carries its branch and commit, no pull request; with no earlier run of main it is compared with the previous run', async () => {
    const payload = githubPush('acme/shop', 'main', [{ modified: ['src/cart.ts'] }]);
    const run = await delivered('push', payload);
    ids.main = run.id;
    expect(run.source).toEqual({ provider: 'github', repository: 'acme/shop', branch: 'main', commit_sha: payload.after, pull_request: null });
    expect(await baseOf(run.id)).toEqual({ base_run_id: ids.pr7, base_rule: 'previous_run' });
  });

  it("a pull request into main is compared with main's push run, even when another pull request's run came in between", async () => {
    ids.pr8 = (await delivered('pull_request', pr(8, 'feature/b', 'main'))).id;
    expect(await baseOf(ids.pr8)).toEqual({ base_run_id: ids.main, base_rule: 'pull_request_target' });
    const pr9 = await delivered('pull_request', pr(9, 'feature/c', 'main'));
    ids.pr9 = pr9.id;
    expect(await baseOf(pr9.id)).toEqual({ base_run_id: ids.main, base_rule: 'pull_request_target' });
  });

  it('a pull request into a branch no push run has falls back to the previous run', async () => {
    const run = await delivered('pull_request', pr(10, 'feature/d', 'release/1'));
    // pr7 ran on feature/a into release/1: a pull request's run is no base for another.
    expect(await baseOf(run.id)).toEqual({ base_run_id: ids.pr9, base_rule: 'previous_run' });
    ids.pr10 = run.id;
  });

  it('a base named with ?base= says named', async () => {
    const res = await api.get(`/api/runs/${ids.pr9}/compare?base=${ids.pr7}`);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ base_run_id: ids.pr7, base_rule: 'named' });
  });
});

describe('API runs with a source', () => {
  it('a CI push run of main becomes the base of the next pull request into main; pr_number follows the source', async () => {
    const push = await started({ source: { branch: 'main', commit_sha: 'a1b2c3d4e5f6' } });
    expect(push.source).toEqual({ provider: null, repository: null, branch: 'main', commit_sha: 'a1b2c3d4e5f6', pull_request: null });
    expect(await baseOf(push.id)).toEqual({ base_run_id: ids.main, base_rule: 'same_branch' });
    const run = await started({ source: { branch: 'feature/e', pull_request: { number: 11, base_branch: 'main' } } });
    expect(run.source).toMatchObject({ branch: 'feature/e', commit_sha: null, pull_request: { number: 11, base_branch: 'main' } });
    expect(await baseOf(run.id)).toEqual({ base_run_id: push.id, base_rule: 'pull_request_target' });
    const history = await api.get(`/api/v1/time-travel/history/${run.thread_id}?limit=1`);
    const state = (await api.get(`/api/v1/time-travel/state/${run.thread_id}/${history.body.items[0].checkpoint_id}`)).body.state;
    expect(state.pr_number).toBe(11);
  });

  it("a branch's run is compared with that branch's previous run (a pull request's head counts)", async () => {
    const run = await started({ source: { branch: 'feature/b' } });
    expect(await baseOf(run.id)).toEqual({ base_run_id: ids.pr8, base_rule: 'same_branch' });
  });

  it('a run without a source is compared with the previous run, as before', async () => {
    const before = (await api.get(`/api/v1/test/status/${ids.pr10}`)).body.run;
    expect(before.source).toMatchObject({ branch: 'feature/d' });
    const run = await started({});
    expect(run.source ?? null).toBeNull();
    const compared = await baseOf(run.id);
    expect(compared.base_rule).toBe('previous_run');
    expect(compared.base_run_id).not.toBeNull();
  });

  it('bad source → 400 naming the field, and no run', async () => {
    const count = async () => (await server.runtime.deps.store.testRuns.listForProject(projectId, 200)).items.length;
    const runs = await count();
    const cases: Array<[unknown, string]> = [
      [{ branch: 'has space' }, 'source.branch'],
      [{ branch: 'x'.repeat(256) }, 'source.branch'],
      [{ commit_sha: 'abc1234' }, 'source.branch'],
      [{ branch: 'main', commit_sha: 'not-a-sha' }, 'source.commit_sha'],
      [{ branch: 'main', pull_request: { number: 3 } }, 'source.pull_request.base_branch'],
      [{ branch: 'main', pull_request: { number: 0, base_branch: 'main' } }, 'source.pull_request.number'],
      [{ branch: 'main', provider: 'github' }, 'source.provider'],
    ];
    for (const [source, path] of cases) {
      const res = await api.post('/api/v1/test/run', { project_id: projectId, test_ids: [testId], source });
      expect(res.status, res.text).toBe(400);
      expect(res.body.error.details.issues.map((i: { path: string }) => i.path), res.text).toContain(path);
    }
    const mismatch = await api.post('/api/tests/run', { project_id: projectId, test_ids: [testId], pr_number: 4, source: { branch: 'f', pull_request: { number: 5, base_branch: 'main' } } });
    expect(mismatch.status, mismatch.text).toBe(400);
    expect(mismatch.body.error.details.issues.map((i: { path: string }) => i.path)).toEqual(['source.pull_request.number']);
    expect(await count()).toBe(runs);
  });
});
