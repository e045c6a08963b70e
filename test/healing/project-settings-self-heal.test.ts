/**
 * A project's healing settings (`config.healing`: threshold, enabled; docs/healing.md)
 * bind the run graph's self_heal node as they bind the in-step healer. QA found that a
 * project asking for a stricter threshold (0.99) had its renamed field healed anyway: the
 * in-step healer refused the 0.9x candidate, and self_heal then replayed the test, proposed
 * the same candidate against the spec's 0.8 and applied it; and a project with healing
 * disabled (`config.healing.enabled: false`) was still healed by self_heal.
 *
 * Real local runtime, real Chromium, the fixture app v1 (fingerprints recorded) → v2
 * (`#email` is gone; the field is `test_id=login-email`, which heals well above 0.8).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureApp, type FixtureApp } from '../fixtures/app/server.ts';
import { startRunGraphServer } from '../run-graph/support/api-server.ts';
import { client, runEnded, signUp, type Client } from '../support/server.ts';

let v1: FixtureApp;
let v2: FixtureApp;
let server: Awaited<ReturnType<typeof startRunGraphServer>>;
let api: Client;

beforeAll(async () => {
  v1 = await startFixtureApp({ version: 'v1' });
  v2 = await startFixtureApp({ version: 'v2' });
  server = await startRunGraphServer();
  const user = await signUp(server.url, 'heal-settings@example.com');
  api = client(server.url, { token: user.token, org: user.orgId });
}, 120_000);

afterAll(async () => {
  await server?.stop();
  await v1?.close();
  await v2?.close();
});

/** A project on v1 with one test filling #email, run once there (fingerprints recorded), then moved to v2 with the given healing config. */
async function brokenOnV2(name: string, healing: Record<string, unknown>) {
  const projectId: string = (await api.post('/api/v1/projects', { name, app_url: v1.url })).body.id;
  const created = await api.post('/api/tests', {
    project_id: projectId,
    name: `${name}: fill the email field by its v1 id`,
    type: 'ui',
    steps: [{ type: 'goto', url: '/login' }, { type: 'fill', selector: '#email', value: 'demo@example.com' }],
    assertions: [],
  });
  expect(created.status, created.text).toBe(201);
  const testId: string = created.body.id;
  const first = await api.post('/api/v1/test/run', { project_id: projectId, test_ids: [testId] });
  expect((await runEnded(api, first.body.run.id, 120_000)).passed_tests).toBe(1);
  const moved = await api.patch(`/api/v1/projects/${projectId}`, { app_url: v2.url, config: { healing } });
  expect(moved.status, moved.text).toBe(200);
  return { projectId, testId };
}

async function runOnce(projectId: string, testId: string) {
  const started = await api.post('/api/v1/test/run', { project_id: projectId, test_ids: [testId] });
  expect(started.status, started.text).toBe(201);
  const run = await runEnded(api, started.body.run.id, 180_000);
  const results = (await api.get(`/api/v1/tests/${run.id}/results`)).body.items as Array<{ status: string; error_message: string | null; metadata: Record<string, unknown> }>;
  return { run, results };
}

describe("self_heal obeys the project's healing settings", () => {
  it('a project whose threshold is 0.99 gets no heal below it, from the step or from self_heal', async () => {
    const { projectId, testId } = await brokenOnV2('strict', { threshold: 0.99 });
    const { run, results } = await runOnce(projectId, testId);
    expect(run).toMatchObject({ status: 'completed', failed_tests: 1, passed_tests: 0 });
    expect(results.map((r) => r.status)).toEqual(['failed']);
    expect(results[0]!.error_message).toMatch(/< 0\.99/);
    // Nothing was learned either: no pattern of a heal the project did not accept.
    expect((await api.get(`/api/healing/patterns?project_id=${projectId}`)).body.items).toEqual([]);
  }, 300_000);

  it('the same project at the default threshold heals (the candidate is a good one)', async () => {
    const { projectId, testId } = await brokenOnV2('default', {});
    const { results } = await runOnce(projectId, testId);
    expect(results.at(-1)).toMatchObject({ status: 'healed' });
  }, 300_000);

  it('a project with healing disabled is not healed by self_heal', async () => {
    const { projectId, testId } = await brokenOnV2('off', { enabled: false });
    const { run, results } = await runOnce(projectId, testId);
    expect(run).toMatchObject({ status: 'completed', failed_tests: 1, passed_tests: 0 });
    expect(results.map((r) => r.status)).toEqual(['failed']);
    expect((await api.get(`/api/healing/patterns?project_id=${projectId}`)).body.items).toEqual([]);
  }, 300_000);
});
