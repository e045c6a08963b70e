// The project's Flows panel, over the real API in Chromium: each flow with its parameters
// (required ones marked), its step count and how many tests use it; an empty project says
// how to add one.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInAs, startPanelWorld } from './browser.ts';

type World = Awaited<ReturnType<typeof startPanelWorld>>;

describe('flows panel', () => {
  let world: World;
  let tab: Page;
  let problems: string[];
  const PROJECT = 'Flow shop';

  beforeAll(async () => {
    world = await startPanelWorld(PROJECT);
    ({ page: tab, problems } = world);
    const flow = await world.api.post('/api/flows', {
      project_id: world.projectId,
      name: 'sign in',
      description: 'Signs in through the login form',
      parameters: [{ name: 'email', default: 'demo@example.com' }, { name: 'password' }],
      steps: [{ type: 'goto', url: '/login' }, { type: 'fill', selector: '#email', value: '{{email}}' }, { type: 'fill', selector: '#password', value: '{{password}}' }, { type: 'click', selector: '#login-submit' }],
    });
    expect(flow.status, flow.text).toBe(201);
    expect((await world.api.post('/api/flows', { project_id: world.projectId, name: 'open home', steps: [{ type: 'goto', url: '/' }] })).status).toBe(201);
    for (const name of ['demo signs in', 'wrong password']) {
      const test = await world.api.post('/api/tests', { project_id: world.projectId, name, type: 'ui', steps: [{ type: 'use', flow: 'sign in', with: { password: name === 'demo signs in' ? 's3cret!' : 'nope' } }] });
      expect(test.status, test.text).toBe(201);
    }
  });
  afterAll(async () => {
    await world?.close();
  });

  it('lists each flow with its parameters, steps and users', async () => {
    await signInAs(tab, world.server.url, world.server.admin.email, world.server.admin.password);
    await tab.getByTestId('project-row').filter({ hasText: PROJECT }).getByTestId('project-flows').click();
    expect(await tab.getByTestId('flows-heading').textContent()).toBe(`Flows · ${PROJECT}`);
    await expect.poll(() => tab.getByTestId('flow-row').count()).toBe(2);
    const rows = await tab.getByTestId('flow-row').evaluateAll((els) =>
      els.map((r) => ['flow-name', 'flow-parameters', 'flow-steps', 'flow-used-by'].map((id) => r.querySelector(`[data-testid="${id}"]`)?.textContent)));
    expect(rows).toEqual([
      ['open home', 'no parameters', '1 step', 'used by 0 tests'],
      ['sign in', 'email = demo@example.com, password (required)', '4 steps', 'used by 2 tests'],
    ]);
    expect(await tab.getByTestId('flow-description').textContent()).toBe('Signs in through the login form');
    await tab.getByTestId('flows-close').click();
    expect(await tab.getByTestId('flows').isHidden()).toBe(true);
    expect(problems).toEqual([]);
  }, 90_000);
});
