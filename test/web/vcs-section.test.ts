// The Source control section over the real API: an admin adds a GitHub integration in the
// browser (after the API named a bad repository under its input), sees its secret once with
// the values GitHub's webhook form asks for, and real signed push deliveries to
// /webhooks/vcs (GitHub's payload and headers, signed with that secret over the raw bytes)
// start a real run against the fixture app or are ignored; the delivery log shows them and
// opens the run in the Tests panel. Pause, rotating the secret after a confirm (the new one
// shown once; real deliveries signed with it and with the previous one are both taken),
// delete after a confirm, and a member who never sees the section.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client } from '../support/server.ts';
import { deliverGithub, githubPing, githubPush } from '../vcs/support/hosts.ts';
import { joinAs, signInAs, startPanelWorld } from './browser.ts';

type World = Awaited<ReturnType<typeof startPanelWorld>>;

describe('source control section', () => {
  let world: World;
  let server: World['server'];
  let tab: Page;
  let api: World['api'];
  let problems: string[];
  let secret = '';
  let integrationId = '';
  let startedRunId = '';

  const PROJECT = 'Shoe shop';
  const REPOSITORY = 'acme/shoe-shop';
  // A pattern is what an admin types: shown as text, never as markup.
  const BRANCHES = ['main', 'release/*', '<i>hotfix</i>'];
  const rows = () => tab.getByTestId('vcs-row');
  const row = () => rows().filter({ has: tab.getByTestId('vcs-row-repository').getByText(REPOSITORY, { exact: true }) });
  const deliveries = () => row().getByTestId('vcs-delivery');
  const outcomes = () => deliveries().getByTestId('vcs-delivery-outcome').allTextContents();
  const push = (branch: string) => githubPush(REPOSITORY, branch, [{ added: ['src/cart.ts'] }, { modified: ['src/cart.ts', 'src/shoes.ts'] }]);

  /** Reads the open delivery log again and waits until it has `n` entries. */
  async function refreshedTo(n: number) {
    await row().getByTestId('vcs-deliveries-refresh').click();
    await expect.poll(() => deliveries().count()).toBe(n);
  }

  beforeAll(async () => {
    world = await startPanelWorld(PROJECT);
    ({ server, api, page: tab, problems } = world);
    // A push runs the project's tests: one that asks the fixture app for its items.
    const test = await api.post('/api/tests', { project_id: world.projectId, name: 'items are listed', type: 'api', steps: [{ type: 'request', url: '/api/items' }], assertions: [{ type: 'status', equals: 200 }] });
    expect(test.status, test.text).toBe(201);
    await tab.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(server.url).origin });
  });

  afterAll(async () => {
    await world?.close();
  });

  it('signs in as the admin: the section is shown, empty, offering the project and both events', async () => {
    await signInAs(tab, server.url, server.admin.email, server.admin.password);
    await tab.getByTestId('vcs').waitFor({ state: 'visible' });
    await expect.poll(() => tab.getByTestId('vcs-status').textContent()).toBe('No integrations yet.');
    await expect.poll(() => tab.getByTestId('vcs-project').locator('option').allTextContents()).toEqual(['Choose a project', PROJECT]);
    expect(await tab.getByTestId('vcs-provider').inputValue()).toBe('github');
    expect(await tab.getByTestId('vcs-event-push').isChecked()).toBe(true);
    expect(await tab.getByTestId('vcs-event-pull_request').isChecked()).toBe(true);
    expect(await tab.getByTestId('vcs-created').isVisible()).toBe(false);
  });

  it("names a missing project and a bad repository under their inputs in the API's words, keeping what was typed", async () => {
    await tab.getByTestId('vcs-repository').fill('acme/shoe shop');
    await tab.getByTestId('vcs-submit').click();
    const repositoryError = tab.getByTestId('vcs-repository-error');
    await repositoryError.waitFor({ state: 'visible' });
    const refused = await api.post('/api/integrations/vcs', { project_id: world.projectId, provider: 'github', repository: 'acme/shoe shop' });
    expect(refused.status).toBe(400);
    const issue = refused.body.error.details.issues.find((i: { path: string | string[] }) => [i.path].flat().join('.') === 'repository');
    expect(await repositoryError.textContent()).toBe(issue.message);
    expect(await tab.getByTestId('vcs-repository').getAttribute('aria-invalid')).toBe('true');
    expect(await tab.getByTestId('vcs-repository').inputValue()).toBe('acme/shoe shop');
    expect(await tab.getByTestId('vcs-project-error').textContent()).toBe('Choose a project.');
    expect(await tab.getByTestId('vcs-branches-error').isVisible()).toBe(false);

    // GitHub's own rule, from the API too: owner/name, one slash.
    await tab.getByTestId('vcs-project').selectOption({ label: PROJECT });
    await tab.getByTestId('vcs-repository').fill('acme/shoes/shop');
    await tab.getByTestId('vcs-submit').click();
    await expect.poll(() => repositoryError.textContent()).toBe('a GitHub repository is owner/name');
    expect(await tab.getByTestId('vcs-project-error').isVisible()).toBe(false);
    expect(await rows().count()).toBe(0);
    expect((await api.get('/api/integrations/vcs')).body.items).toEqual([]);
  });

  it('adds a GitHub integration: the secret is shown once with the payload URL, content type and events to set', async () => {
    await tab.getByTestId('vcs-repository').fill(REPOSITORY);
    await tab.getByTestId('vcs-branches').fill(BRANCHES.join(', '));
    await tab.getByTestId('vcs-submit').click();

    const created = tab.getByTestId('vcs-created');
    await created.waitFor({ state: 'visible' });
    secret = (await tab.getByTestId('vcs-setup-secret').textContent())!;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(await created.textContent()).toContain('Copy the secret now: it is not shown again.');
    expect(await tab.getByTestId('vcs-setup-payload-url').textContent()).toBe(`${new URL(server.url).origin}/webhooks/vcs`);
    expect(await tab.getByTestId('vcs-setup-content-type').textContent()).toBe('application/json');
    expect(await tab.getByTestId('vcs-setup-which-events').textContent()).toBe('Let me select individual events: Pushes, Pull requests');
    expect(await tab.getByTestId('vcs-setup-link').getAttribute('href')).toBe(`https://github.com/${REPOSITORY}/settings/hooks/new`);
    expect(await tab.getByTestId('vcs-setup-link').getAttribute('rel')).toBe('noopener noreferrer');
    // The test server listens on loopback: the panel says GitHub needs a tunnel to reach it.
    expect(await tab.getByTestId('vcs-setup-loopback').textContent()).toMatch(/loopback address: GitHub can reach .* only through a tunnel/);
    await tab.getByTestId('vcs-setup-secret-copy').click();
    await expect.poll(() => tab.getByTestId('vcs-setup-secret-copy').textContent()).toBe('Copied');
    expect(await tab.evaluate(() => navigator.clipboard.readText())).toBe(secret);

    await expect.poll(() => rows().count()).toBe(1);
    expect(await row().getByTestId('vcs-row-provider').textContent()).toBe('GitHub');
    expect(await row().getByTestId('vcs-row-state').textContent()).toBe('enabled');
    expect(await row().getByTestId('vcs-row-project').textContent()).toBe(PROJECT);
    expect(await row().getByTestId('vcs-row-events').textContent()).toBe('Runs on pushes and pull requests');
    expect(await row().getByTestId('vcs-row-branches').textContent()).toBe(`Branches: ${BRANCHES.join(', ')}`);
    expect(await row().getByTestId('vcs-row-tags').textContent()).toBe('Every test of the project');
    expect(await row().getByTestId('vcs-row-healing').textContent()).toBe("Healing: the project's setting");
    expect(await tab.getByTestId('vcs-list').locator('i').count()).toBe(0);
    // The form is back at its defaults, the project still chosen.
    expect(await tab.getByTestId('vcs-repository').inputValue()).toBe('');
    expect(await tab.getByTestId('vcs-repository').getAttribute('aria-invalid')).toBeNull();
    expect(await tab.getByTestId('vcs-project').inputValue()).toBe(world.projectId);

    const listed = (await api.get('/api/integrations/vcs')).body.items;
    expect(listed).toMatchObject([{ project_id: world.projectId, provider: 'github', repository: REPOSITORY, events: ['push', 'pull_request'], branches: BRANCHES, tags: [], healing_enabled: null, enabled: true }]);
    integrationId = listed[0].id;
    expect(JSON.stringify(listed)).not.toContain(secret);

    // Shown once: a reload no longer has it.
    await tab.reload();
    await expect.poll(() => rows().count()).toBe(1);
    expect(await tab.getByTestId('vcs-created').isVisible()).toBe(false);
    expect(await tab.content()).not.toContain(secret);
  });

  it('a signed push to main starts a run: the delivery log shows it started, with its branch, commit and changed files', async () => {
    const payload = push('main');
    const delivered = await deliverGithub(server.url, 'push', payload, { secret });
    expect(delivered.status, delivered.text).toBe(202);
    expect(delivered.body.runs).toEqual([{ run_id: expect.any(String), project_id: world.projectId }]);
    startedRunId = delivered.body.runs[0].run_id;

    await row().getByTestId('vcs-deliveries').click();
    expect(await row().getByTestId('vcs-deliveries').getAttribute('aria-expanded')).toBe('true');
    await expect.poll(outcomes).toEqual(['started']);
    const entry = deliveries().first();
    expect(await entry.getByTestId('vcs-delivery-event').textContent()).toBe('push');
    expect(await entry.getByTestId('vcs-delivery-id').textContent()).toBe(delivered.deliveryId);
    expect(await entry.getByTestId('vcs-delivery-branch').textContent()).toBe('branch main');
    expect(await entry.getByTestId('vcs-delivery-commit').textContent()).toBe(payload.after.slice(0, 7));
    expect(await entry.getByTestId('vcs-delivery-commit').getAttribute('title')).toBe(payload.after);
    expect(await entry.getByTestId('vcs-delivery-files').textContent()).toBe('2 changed files');
    expect(await entry.getByTestId('vcs-delivery-time').getAttribute('datetime')).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(await entry.getByTestId('vcs-delivery-run').isVisible()).toBe(true);
  });

  it('a push to another branch is ignored with the reason, listed above the first', async () => {
    const delivered = await deliverGithub(server.url, 'push', push('feature/laces'), { secret });
    expect(delivered.status, delivered.text).toBe(202);
    expect(delivered.body.runs).toEqual([]);
    await refreshedTo(2);
    expect(await outcomes()).toEqual(['ignored', 'started']);
    const entry = deliveries().first();
    expect(await entry.getByTestId('vcs-delivery-branch').textContent()).toBe('branch feature/laces');
    expect(await entry.getByTestId('vcs-delivery-reason').textContent()).toBe(delivered.body.ignored);
    expect(delivered.body.ignored).toBe(`branch feature/laces matches none of ${BRANCHES.join(', ')}`);
    expect(await entry.getByTestId('vcs-delivery-run').count()).toBe(0);
    expect(await row().locator('i').count()).toBe(0);
  });

  it("opens the started run in the project's Tests panel, which follows it to the end and offers its report", async () => {
    await deliveries().filter({ has: tab.getByTestId('vcs-delivery-outcome').getByText('started', { exact: true }) }).getByTestId('vcs-delivery-run').click();
    await expect.poll(() => tab.getByTestId('tests-heading').textContent()).toBe(`Tests · ${PROJECT}`);
    expect(await tab.getByTestId('test-run-heading').textContent()).toMatch(/^Run of push to main at [0-9a-f]{7}$/);
    await expect.poll(() => tab.getByTestId('test-run-id').textContent()).toBe(startedRunId);
    await expect.poll(() => tab.getByTestId('test-run-source').textContent()).toBe('branch main');
    await expect.poll(() => tab.getByTestId('test-run-state').textContent(), { timeout: 60_000, interval: 200 }).toBe('completed');
    await expect.poll(() => tab.getByTestId('test-result-name').allTextContents()).toEqual(['items are listed']);
    expect(await tab.getByTestId('test-result-status').allTextContents()).toEqual(['passed']);
    await tab.getByTestId('test-run-report').waitFor({ state: 'visible' });
    expect((await api.get(`/api/v1/test/status/${startedRunId}`)).body.run).toMatchObject({ trigger: 'vcs', status: 'completed' });
  }, 90_000);

  it('pauses: a push to main is then logged as ignored because the integration is paused', async () => {
    await row().getByTestId('vcs-toggle').click();
    await expect.poll(() => row().getByTestId('vcs-row-state').textContent()).toBe('paused');
    expect(await row().getByTestId('vcs-toggle').textContent()).toBe('Resume');
    expect((await api.get(`/api/integrations/vcs/${integrationId}`)).body.enabled).toBe(false);

    const delivered = await deliverGithub(server.url, 'push', push('main'), { secret });
    expect(delivered.status, delivered.text).toBe(202);
    expect(delivered.body).toMatchObject({ runs: [], ignored: 'the integration is paused' });
    // The list was read again on the pause, so the log is closed: open it.
    await row().getByTestId('vcs-deliveries').click();
    await expect.poll(outcomes).toEqual(['ignored', 'ignored', 'started']);
    expect(await deliveries().first().getByTestId('vcs-delivery-reason').textContent()).toBe('the integration is paused');
    expect(await deliveries().first().getByTestId('vcs-delivery-id').textContent()).toBe(delivered.deliveryId);
  });

  it('rotates the secret from its form (Cancel rotates nothing, a bad grace period is named): the new one is shown once under the row, and both it and the previous one are taken meanwhile', async () => {
    const ping = (with_: string) => deliverGithub(server.url, 'ping', githubPing(REPOSITORY, `${server.url}/webhooks/vcs`), { secret: with_ });
    const form = () => row().getByTestId('vcs-rotate-form');
    await row().getByTestId('vcs-rotate').click();
    expect(await form().isVisible()).toBe(true);
    expect(await form().textContent()).toContain("The current one keeps working for the hours below, until you have put the new one into the repository's webhook on GitHub (Secret); 0 stops it at once (for a secret that leaked).");
    expect(await form().getByLabel('Hours the current secret keeps working (0–168)').inputValue()).toBe('24');
    await form().getByTestId('vcs-rotate-cancel').click();
    expect(await form().isVisible()).toBe(false);
    expect((await api.get(`/api/integrations/vcs/${integrationId}`)).body.secret_rotated_at).toBeNull();
    expect(await row().getByTestId('vcs-rotated').isVisible()).toBe(false);

    // Over a week: the API's message under the field, nothing rotated, the form still open.
    await row().getByTestId('vcs-rotate').click();
    await form().getByTestId('vcs-rotate-grace').fill('200');
    await form().getByTestId('vcs-rotate-confirm').click();
    await expect.poll(() => form().getByTestId('vcs-rotate-grace-error').textContent()).toMatch(/168/);
    expect(await form().getByTestId('vcs-rotate-grace').getAttribute('aria-invalid')).toBe('true');
    expect((await api.get(`/api/integrations/vcs/${integrationId}`)).body.secret_rotated_at).toBeNull();

    await form().getByTestId('vcs-rotate-grace').fill('24');
    await form().getByTestId('vcs-rotate-confirm').click();
    await row().getByTestId('vcs-rotated').waitFor({ state: 'visible' });
    expect(await form().isVisible()).toBe(false);
    const rotated = (await row().getByTestId('vcs-rotated-secret').textContent())!;
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(secret);
    const now = (await api.get(`/api/integrations/vcs/${integrationId}`)).body;
    expect(now.secret_rotated_at).toEqual(expect.any(String));
    expect(Date.parse(now.previous_secret_expires_at) - Date.parse(now.secret_rotated_at)).toBe(24 * 3600_000);
    expect(await row().getByTestId('vcs-rotated-until').getAttribute('datetime')).toBe(now.previous_secret_expires_at);
    await row().getByTestId('vcs-rotated-copy').click();
    await expect.poll(() => row().getByTestId('vcs-rotated-copy').textContent()).toBe('Copied');
    expect(await tab.evaluate(() => navigator.clipboard.readText())).toBe(rotated);

    // Real signed pings: the host still holding the previous secret and one already updated are both taken (the integration is paused: answered, nothing runs).
    for (const with_ of [secret, rotated]) expect((await ping(with_)).status).toBe(202);
    expect((await ping('whsec_not-the-secret')).status).toBe(401);

    // Done drops the new secret from the page: nothing shows it again.
    await row().getByTestId('vcs-rotated-done').click();
    expect(await row().getByTestId('vcs-rotated').isVisible()).toBe(false);
    expect(await tab.content()).not.toContain(rotated);
    secret = rotated;
  });

  it('deletes the integration only once the confirm is accepted; its webhooks are refused from then on', async () => {
    tab.once('dialog', (dialog) => void dialog.dismiss());
    await row().getByTestId('vcs-delete').click();
    expect(await rows().count()).toBe(1);
    expect((await api.get(`/api/integrations/vcs/${integrationId}`)).status).toBe(200);

    let question = '';
    tab.once('dialog', (dialog) => {
      question = dialog.message();
      void dialog.accept();
    });
    await row().getByTestId('vcs-delete').click();
    await expect.poll(() => tab.getByTestId('vcs-status').textContent()).toBe('No integrations yet.');
    expect(await rows().count()).toBe(0);
    expect(question).toBe(`Delete the integration for “${REPOSITORY}”? Its webhooks are refused from then on; its runs stay.`);
    expect((await api.get(`/api/integrations/vcs/${integrationId}`)).status).toBe(404);
    expect((await deliverGithub(server.url, 'push', push('main'), { secret })).status).toBe(401);
    expect(problems).toEqual([]);
  });

  it("adds a GitLab integration for pushes only: the setup names GitLab's fields", async () => {
    await tab.getByTestId('vcs-project').selectOption({ label: PROJECT });
    await tab.getByTestId('vcs-provider').selectOption('gitlab');
    await tab.getByTestId('vcs-repository').fill('acme/web/shoe-shop');
    await tab.getByTestId('vcs-event-pull_request').uncheck();
    await tab.getByTestId('vcs-tags').fill('smoke, checkout');
    await tab.getByTestId('vcs-healing').selectOption('false');
    await tab.getByTestId('vcs-submit').click();

    await tab.getByTestId('vcs-created').waitFor({ state: 'visible' });
    expect(await tab.getByTestId('vcs-setup-url').textContent()).toBe(`${new URL(server.url).origin}/webhooks/vcs`);
    expect(await tab.getByTestId('vcs-setup-secret-token').textContent()).toMatch(/^whsec_/);
    expect(await tab.getByTestId('vcs-setup-trigger').textContent()).toBe('Push events');
    expect(await tab.getByTestId('vcs-setup-where').textContent()).toContain('Settings → Webhooks → Add new webhook');
    expect(await tab.getByTestId('vcs-setup-link').count()).toBe(0);
    await expect.poll(() => rows().count()).toBe(1);
    expect(await rows().getByTestId('vcs-row-provider').textContent()).toBe('GitLab');
    expect(await rows().getByTestId('vcs-row-events').textContent()).toBe('Runs on pushes');
    expect(await rows().getByTestId('vcs-row-branches').textContent()).toBe("Branches: the repository's default branch");
    expect(await rows().getByTestId('vcs-row-tags').textContent()).toBe('Tests tagged smoke, checkout');
    expect(await rows().getByTestId('vcs-row-healing').textContent()).toBe('Healing: off');
    expect((await api.get('/api/integrations/vcs')).body.items).toMatchObject([{ provider: 'gitlab', repository: 'acme/web/shoe-shop', events: ['push'], branches: [], tags: ['smoke', 'checkout'], healing_enabled: false }]);

    // Done drops the secret from the page.
    await tab.getByTestId('vcs-setup-done').click();
    await tab.getByTestId('vcs-created').waitFor({ state: 'hidden' });
    expect(await tab.getByTestId('vcs-setup-secret-token').count()).toBe(0);
  });

  it('is not shown to a member, whom the API refuses too', async () => {
    const member = await joinAs(tab, server.url, api, 'vcs-member@example.com', 'member', 'Member own org');
    // The browser remembers the admin's organization, where this person is a member.
    await tab.getByTestId('project-row').filter({ hasText: PROJECT }).waitFor();
    expect(await tab.getByTestId('org-name').textContent()).toMatch(/· member$/);
    expect(await tab.getByTestId('vcs').isVisible()).toBe(false);
    expect(await tab.getByTestId('vcs-row').count()).toBe(0);
    expect(await tab.content()).not.toContain('acme/web/shoe-shop');
    expect((await client(server.url, { token: member.token, org: server.admin.organizationId }).get('/api/integrations/vcs')).status).toBe(403);
    expect(problems).toEqual([]);
  });
});
