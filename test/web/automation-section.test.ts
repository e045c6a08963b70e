// The Workflow automation section over the real API: an admin sees where events go, the
// API's refusals under the inputs, adds an integration scoped to a project and sees its
// id and secret once (a real event signed with that secret is then taken), sees it listed
// with its projects and secret hint (never the secret), rotates its secret from the row's
// form with no grace period (the new one shown once; events signed with the previous one are
// refused at once), pauses it
// (its events are then refused with 403) and deletes it after a confirm (401 from then on).
// A member sees neither the section nor its integrations.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client } from '../support/server.ts';
import { sendEvent } from '../automation/support/events.ts';
import { joinAs, signInAs, startPanelWorld } from './browser.ts';

type World = Awaited<ReturnType<typeof startPanelWorld>>;

describe('workflow automation section', () => {
  let world: World;
  let server: World['server'];
  let tab: Page;
  let api: World['api'];
  let problems: string[];
  let integration = { id: '', secret: '' };

  const PROJECT = 'Bike shop';
  const rows = () => tab.getByTestId('automation-row');
  /** A real failure.reported event (not executed: no browser run needed), signed with the shown secret. */
  const event = () => sendEvent(server.url, integration, { event: 'failure.reported', project: PROJECT, execute: false, failure: { message: 'Error: boom', url: `${world.fixture.url}/table` } });

  beforeAll(async () => {
    world = await startPanelWorld(PROJECT);
    ({ server, api, page: tab, problems } = world);
    await tab.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(server.url).origin });
  });

  afterAll(async () => {
    await world?.close();
  });

  it('signs in as the admin: the section is empty, says where events go and offers the projects', async () => {
    await signInAs(tab, server.url, server.admin.email, server.admin.password);
    await tab.getByTestId('automation').waitFor({ state: 'visible' });
    await expect.poll(() => tab.getByTestId('automation-status').textContent()).toBe('No automation integrations yet.');
    expect(await tab.getByTestId('automation-url').textContent()).toBe(`${new URL(server.url).origin}/webhooks/automation`);
    await expect.poll(() => tab.getByTestId('automation-projects').locator('option').allTextContents()).toEqual([PROJECT]);
  });

  it('is spaced like the other panels: a gap above it, and the empty list apart from the help', async () => {
    const box = async (testid: string) => {
      const b = await tab.getByTestId(testid).boundingBox();
      if (!b) throw new Error(`${testid} is not shown`);
      return { top: b.y, bottom: b.y + b.height };
    };
    const [vcs, chat, automation] = [await box('vcs'), await box('chat'), await box('automation')];
    const panelGap = chat.top - vcs.bottom;
    expect(panelGap).toBeGreaterThan(15);
    // The chat panel above ends a gap before this one starts, the same gap as between the panels above it.
    expect(automation.top - chat.bottom).toBeCloseTo(panelGap, 0);
    // "No automation integrations yet." is a line apart from the help paragraph, as in the chat panel.
    const helpGap = (await box('automation-status')).top - (await box('automation-help')).bottom;
    expect(helpGap).toBeGreaterThan(10);
    expect(helpGap).toBeCloseTo((await box('chat-slack')).top - (await box('chat-help')).bottom, 0);
  });

  it("names what is missing under its input, in the section's words", async () => {
    await tab.getByTestId('automation-submit').click();
    await expect.poll(() => tab.getByTestId('automation-name-error').textContent()).toBe('Name the integration (the tool or workflow it is for).');
    expect(await tab.getByTestId('automation-name').getAttribute('aria-invalid')).toBe('true');
    expect(await tab.getByTestId('automation-projects-error').isVisible()).toBe(false);
    expect(await rows().count()).toBe(0);
    expect((await api.get('/api/integrations/automation')).body.items).toEqual([]);
  });

  it('adds an integration: its id and secret are shown once, and an event signed with them is taken', async () => {
    await tab.getByTestId('automation-name').fill('n8n nightly');
    await tab.getByTestId('automation-projects').selectOption({ label: PROJECT });
    await tab.getByTestId('automation-submit').click();

    await tab.getByTestId('automation-created').waitFor({ state: 'visible' });
    await expect.poll(() => rows().count()).toBe(1);
    const listed = (await api.get('/api/integrations/automation')).body.items;
    expect(listed).toMatchObject([{ name: 'n8n nightly', project_ids: [world.projectId], enabled: true }]);
    integration = { id: listed[0].id, secret: (await tab.getByTestId('automation-created-secret').textContent())! };
    expect(await tab.getByTestId('automation-created-id').textContent()).toBe(integration.id);
    expect(integration.secret).toMatch(/^whsec_/);
    expect(await tab.getByTestId('automation-created-url').textContent()).toBe(`${new URL(server.url).origin}/webhooks/automation`);
    await tab.getByTestId('automation-created-secret-copy').click();
    expect(await tab.evaluate(() => navigator.clipboard.readText())).toBe(integration.secret);

    const taken = await event();
    expect(taken.status, taken.text).toBe(201);
    expect(taken.body).toMatchObject({ event: 'failure.reported', project_id: world.projectId, execution: { status: 'not_executed' } });

    expect(await rows().getByTestId('automation-row-name').textContent()).toBe('n8n nightly');
    expect(await rows().getByTestId('automation-row-projects').textContent()).toBe(PROJECT);
    expect(await rows().getByTestId('automation-row-secret').textContent()).toBe(`Secret ${listed[0].secret_hint}`);
    expect(await tab.getByTestId('automation-name').inputValue()).toBe('');
    // Done drops the secret from the page: nothing shows it again.
    await tab.getByTestId('automation-created-done').click();
    expect(await tab.getByTestId('automation-created').isVisible()).toBe(false);
    expect(await tab.content()).not.toContain(integration.secret);
  });

  it('rotates the secret with no grace period (a leaked secret): the new one is shown once under the row, the previous one is refused at once', async () => {
    const form = () => rows().getByTestId('automation-rotate-form');
    await rows().getByTestId('automation-rotate').click();
    expect(await form().textContent()).toContain("until you have put the new one into the tool's credentials (it signs events and checks callbacks with it)");
    await form().getByTestId('automation-rotate-cancel').click();
    expect((await api.get(`/api/integrations/automation/${integration.id}`)).body.secret_rotated_at).toBeNull();

    await rows().getByTestId('automation-rotate').click();
    await form().getByTestId('automation-rotate-grace').fill('0');
    await form().getByTestId('automation-rotate-confirm').click();
    await rows().getByTestId('automation-rotated').waitFor({ state: 'visible' });
    expect(await rows().getByTestId('automation-rotated-grace').textContent()).toBe('The previous secret no longer works.');
    const rotated = (await rows().getByTestId('automation-rotated-secret').textContent())!;
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(integration.secret);
    const listed = (await api.get(`/api/integrations/automation/${integration.id}`)).body;
    expect(listed.secret_hint).toBe(`…${rotated.slice(-4)}`);
    expect(await rows().getByTestId('automation-row-secret').textContent()).toBe(`Secret ${listed.secret_hint}`);
    expect(listed.previous_secret_expires_at).toBeNull();
    await rows().getByTestId('automation-rotated-copy').click();
    expect(await tab.evaluate(() => navigator.clipboard.readText())).toBe(rotated);

    // Real signed events: the tool still holding the previous secret is refused, one already updated is taken.
    const previous = integration.secret;
    expect((await event()).status).toBe(401);
    integration = { ...integration, secret: rotated };
    expect((await event()).status).toBe(201);
    expect((await sendEvent(server.url, { id: integration.id, secret: 'whsec_not-the-secret' }, { event: 'failure.reported', project: PROJECT, execute: false, failure: { message: 'x', url: world.fixture.url } })).status).toBe(401);

    await rows().getByTestId('automation-rotated-done').click();
    expect(await rows().getByTestId('automation-rotated').isVisible()).toBe(false);
    const page = await tab.content();
    expect(page).not.toContain(rotated);
    expect(page).not.toContain(previous);
  });

  it('pauses the integration: its row says so and its events are refused', async () => {
    await rows().getByTestId('automation-toggle').click();
    await expect.poll(() => rows().getByTestId('automation-row-state').textContent()).toBe('paused');
    expect(await rows().getByTestId('automation-toggle').textContent()).toBe('Resume');
    expect((await api.get(`/api/integrations/automation/${integration.id}`)).body.enabled).toBe(false);
    expect((await event()).status).toBe(403);
  });

  it('deletes the integration only once the confirm is accepted; its events get 401 from then on', async () => {
    tab.once('dialog', (dialog) => void dialog.dismiss());
    await rows().getByTestId('automation-delete').click();
    expect(await rows().count()).toBe(1);
    expect((await api.get(`/api/integrations/automation/${integration.id}`)).status).toBe(200);

    let question = '';
    tab.once('dialog', (dialog) => {
      question = dialog.message();
      void dialog.accept();
    });
    await rows().getByTestId('automation-delete').click();
    await expect.poll(() => tab.getByTestId('automation-status').textContent()).toBe('No automation integrations yet.');
    expect(question).toBe('Delete the automation integration n8n nightly? Its events are refused from then on; its runs stay.');
    expect((await api.get(`/api/integrations/automation/${integration.id}`)).status).toBe(404);
    expect((await event()).status).toBe(401);
    expect(problems).toEqual([]);
  });

  it('is not shown to a member, whom the API refuses too', async () => {
    const again = await api.post('/api/integrations/automation', { name: 'cron' });
    expect(again.status, again.text).toBe(201);
    const member = await joinAs(tab, server.url, api, 'automation-member@example.com', 'member', 'Member own org');
    await tab.getByTestId('project-row').filter({ hasText: PROJECT }).waitFor();
    expect(await tab.getByTestId('org-name').textContent()).toMatch(/· member$/);
    expect(await tab.getByTestId('automation').isVisible()).toBe(false);
    expect(await rows().count()).toBe(0);
    expect((await client(server.url, { token: member.token, org: server.admin.organizationId }).get('/api/integrations/automation')).status).toBe(403);
    expect(problems).toEqual([]);
  });
});
