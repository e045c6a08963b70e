/**
 * Cancel during a UI test: the run is marked cancelled and its Chromium is gone.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, signUp, type Client } from '../support/server.ts';
import { createPlaywrightDriver, type PlaywrightDriver } from '../../packages/functions/src/execution/browser/playwright-driver.ts';
import { startRunGraphServer } from './support/api-server.ts';
import { startTarget, type Target } from './support/target.ts';
import { alive } from '../support/process-alive.ts';

let server: Awaited<ReturnType<typeof startRunGraphServer>>;
let target: Target;
let api: Client;
const drivers: PlaywrightDriver[] = [];

beforeAll(async () => {
  target = await startTarget();
  server = await startRunGraphServer({
    browser: async () => {
      const d = await createPlaywrightDriver();
      drivers.push(d);
      return d;
    },
  });
  const user = await signUp(server.url, 'cancel@example.com');
  api = client(server.url, { token: user.token, org: user.orgId });
});
afterAll(async () => {
  await server?.stop();
  await target?.stop();
});

describe('cancel', () => {
  it('stops Chromium and marks the run cancelled', async () => {
    const projectId = (await api.post('/api/v1/projects', { name: 'ui', app_url: target.url })).body.id;
    const test = await api.post('/api/tests', {
      project_id: projectId,
      name: 'waits for ever',
      type: 'ui',
      steps: [{ type: 'goto', url: '/page' }, { type: 'wait-for', selector: '#never', timeout_ms: 120_000 }],
    });
    const run = (await api.post('/api/v1/test/run', { project_id: projectId, test_ids: [test.body.id] })).body;
    const deadline = Date.now() + 30_000;
    while (!drivers[0]?.browserPid() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    const pid = drivers[0].browserPid()!;
    expect(alive(pid)).toBe(true);
    await new Promise((r) => setTimeout(r, 300)); // inside the wait-for step

    const res = await api.post(`/api/v1/test/cancel/${run.run.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'cancelled', completed_at: expect.any(String) });
    for (let i = 0; i < 100 && alive(pid); i++) await new Promise((r) => setTimeout(r, 50));
    expect(alive(pid)).toBe(false);
    const status = (await api.get(`/api/v1/test/status/${run.run.id}`)).body;
    expect(status).toMatchObject({ active: false, run: { status: 'cancelled' } });
    expect((await api.get(`/api/v1/tests/${run.run.id}/results`)).body.items).toEqual([]);
  });
});
