// The Chat commands (Slack) section over the real API: an admin sees what Slack's
// slash-command form needs (this server's /webhooks/chat, with the loopback note), the
// API's refusals under their inputs, adds an integration whose real signed slash command
// then answers, sees it listed with its workspace, users and secret hint (never the
// secret), pauses it (the command then says so) and deletes it after a confirm (the command
// is then refused). A member sees neither the section nor its integrations.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client } from '../support/server.ts';
import { slashCommand } from '../chatops/support/slack.ts';
import { joinAs, signInAs, startPanelWorld } from './browser.ts';

type World = Awaited<ReturnType<typeof startPanelWorld>>;

describe('chat commands section', () => {
  let world: World;
  let server: World['server'];
  let tab: Page;
  let api: World['api'];
  let problems: string[];
  let integrationId = '';

  const PROJECT = 'Bike shop';
  const SECRET = '8f742231b10e8888abcd99yyyzzz85a5';
  const TEAM = 'T0123ABCD';
  const USERS = ['U0123ABCD', 'U0456EFGH'];
  const rows = () => tab.getByTestId('chat-row');
  /** A real slash command, signed as Slack signs it, from one of the allowed users. */
  const command = (text: string, secret = SECRET) =>
    slashCommand(server.url, { team_id: TEAM, user_id: USERS[0]!, text, response_url: 'http://127.0.0.1:9/unused' }, { secret });

  beforeAll(async () => {
    world = await startPanelWorld(PROJECT);
    ({ server, api, page: tab, problems } = world);
    await tab.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(server.url).origin });
  });

  afterAll(async () => {
    await world?.close();
  });

  it("signs in as the admin: the section is empty and shows the values Slack's slash-command form asks for", async () => {
    await signInAs(tab, server.url, server.admin.email, server.admin.password);
    await tab.getByTestId('chat').waitFor({ state: 'visible' });
    await expect.poll(() => tab.getByTestId('chat-status').textContent()).toBe('No Slack integrations yet.');
    await expect.poll(() => tab.getByTestId('chat-project').locator('option').allTextContents()).toEqual(['Choose a project', PROJECT]);
    const requestUrl = `${new URL(server.url).origin}/webhooks/chat`;
    expect(await tab.getByTestId('chat-setup-request-url').textContent()).toBe(requestUrl);
    expect(await tab.getByTestId('chat-setup-command').textContent()).toBe('/svc');
    // The test server listens on loopback: the section says Slack needs a tunnel to reach it.
    expect(await tab.getByTestId('chat-loopback').textContent()).toMatch(/loopback address: Slack can reach .* only through a tunnel/);
    await tab.getByTestId('chat-setup-request-url-copy').click();
    await expect.poll(() => tab.getByTestId('chat-setup-request-url-copy').textContent()).toBe('Copied');
    expect(await tab.evaluate(() => navigator.clipboard.readText())).toBe(requestUrl);
  });

  it("names what is missing or wrong under each input, in the API's words, keeping what was typed", async () => {
    await tab.getByTestId('chat-submit').click();
    await expect.poll(() => tab.getByTestId('chat-project-error').textContent()).toBe('Choose a project.');
    expect(await tab.getByTestId('chat-secret-error').textContent()).toBe("Paste the Slack app's signing secret.");
    expect(await tab.getByTestId('chat-team-error').isVisible()).toBe(false);

    await tab.getByTestId('chat-project').selectOption({ label: PROJECT });
    await tab.getByTestId('chat-secret').fill('short');
    await tab.getByTestId('chat-team').fill('acme');
    await tab.getByTestId('chat-users').fill('U0123ABCD, U0123ABCD');
    await tab.getByTestId('chat-submit').click();
    const teamError = tab.getByTestId('chat-team-error');
    await teamError.waitFor({ state: 'visible' });
    const refused = await api.post('/api/integrations/chat', { provider: 'slack', project_id: world.projectId, signing_secret: 'short', team_id: 'acme', allowed_user_ids: ['U0123ABCD', 'U0123ABCD'] });
    expect(refused.status).toBe(400);
    const issue = (field: string) => refused.body.error.details.issues.find((i: { path: string | string[] }) => [i.path].flat()[0] === field).message;
    expect(await teamError.textContent()).toBe(issue('team_id'));
    expect(await tab.getByTestId('chat-secret-error').textContent()).toBe(issue('signing_secret'));
    expect(await tab.getByTestId('chat-users-error').textContent()).toBe(issue('allowed_user_ids'));
    expect(await tab.getByTestId('chat-project-error').isVisible()).toBe(false);
    expect(await tab.getByTestId('chat-team').getAttribute('aria-invalid')).toBe('true');
    expect(await tab.getByTestId('chat-team').inputValue()).toBe('acme');
    expect(await rows().count()).toBe(0);
    expect((await api.get('/api/integrations/chat')).body.items).toEqual([]);
  });

  it('adds an integration: listed with its project, workspace, users and secret hint, and its signed commands answer', async () => {
    await tab.getByTestId('chat-secret').fill(SECRET);
    await tab.getByTestId('chat-team').fill(TEAM);
    await tab.getByTestId('chat-users').fill(USERS.join(', '));
    await tab.getByTestId('chat-submit').click();

    await expect.poll(() => rows().count()).toBe(1);
    const listed = (await api.get('/api/integrations/chat')).body.items;
    expect(listed).toMatchObject([{ provider: 'slack', project_id: world.projectId, team_id: TEAM, allowed_user_ids: USERS, enabled: true, signing_secret_set: true }]);
    integrationId = listed[0].id;
    expect(await rows().getByTestId('chat-row-project').textContent()).toBe(PROJECT);
    expect(await rows().getByTestId('chat-row-state').textContent()).toBe('enabled');
    expect(await rows().getByTestId('chat-row-team').textContent()).toBe(`Workspace ${TEAM}`);
    expect(await rows().getByTestId('chat-row-users').textContent()).toBe(`Users ${USERS.join(', ')}`);
    expect(await rows().getByTestId('chat-row-secret').textContent()).toBe(`Signing secret ${listed[0].signing_secret_hint}`);
    // The form is back at its defaults (the secret gone from it), the project still chosen.
    expect(await tab.getByTestId('chat-secret').inputValue()).toBe('');
    expect(await tab.getByTestId('chat-team').getAttribute('aria-invalid')).toBeNull();
    expect(await tab.getByTestId('chat-project').inputValue()).toBe(world.projectId);
    expect(await tab.content()).not.toContain(SECRET);

    const help = await command('help');
    expect(help.status, help.text).toBe(200);
    expect(help.body.text).toMatch(/^`\/svc run/);
  });

  it('pauses the integration: its row says so and the command answers that it is paused', async () => {
    await rows().getByTestId('chat-toggle').click();
    await expect.poll(() => rows().getByTestId('chat-row-state').textContent()).toBe('paused');
    expect(await rows().getByTestId('chat-toggle').textContent()).toBe('Resume');
    expect((await api.get(`/api/integrations/chat/${integrationId}`)).body.enabled).toBe(false);
    expect((await command('run')).body.text).toMatch(/paused/);
  });

  it('deletes the integration only once the confirm is accepted; its commands are refused from then on', async () => {
    tab.once('dialog', (dialog) => void dialog.dismiss());
    await rows().getByTestId('chat-delete').click();
    expect(await rows().count()).toBe(1);
    expect((await api.get(`/api/integrations/chat/${integrationId}`)).status).toBe(200);

    let question = '';
    tab.once('dialog', (dialog) => {
      question = dialog.message();
      void dialog.accept();
    });
    await rows().getByTestId('chat-delete').click();
    await expect.poll(() => tab.getByTestId('chat-status').textContent()).toBe('No Slack integrations yet.');
    expect(await rows().count()).toBe(0);
    expect(question).toBe(`Delete the Slack integration of ${PROJECT} (workspace ${TEAM})? Its slash commands are refused from then on; its runs stay.`);
    expect((await api.get(`/api/integrations/chat/${integrationId}`)).status).toBe(404);
    expect((await command('help')).status).toBe(401);
    expect(problems).toEqual([]);
  });

  it('is not shown to a member, whom the API refuses too; the member may discover & test a project', async () => {
    const again = await api.post('/api/integrations/chat', { provider: 'slack', project_id: world.projectId, signing_secret: SECRET, team_id: TEAM });
    expect(again.status, again.text).toBe(201);
    const member = await joinAs(tab, server.url, api, 'chat-member@example.com', 'member', 'Member own org');
    // The browser remembers the admin's organization, where this person is a member.
    const project = tab.getByTestId('project-row').filter({ hasText: PROJECT });
    await project.waitFor();
    expect(await tab.getByTestId('org-name').textContent()).toMatch(/· member$/);
    expect(await tab.getByTestId('chat').isVisible()).toBe(false);
    expect(await rows().count()).toBe(0);
    expect((await client(server.url, { token: member.token, org: server.admin.organizationId }).get('/api/integrations/chat')).status).toBe(403);
    expect(await project.getByTestId('project-loop').isVisible()).toBe(true);
    expect(problems).toEqual([]);
  });
});
