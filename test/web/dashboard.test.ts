// The dashboard shell end to end: a real Chromium drives the static pages of
// @svc/web against the real local runtime (browser → API → store).
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHmac, randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { client, startTestServer } from '../support/server.ts';
import { awayFromClusterWindowEdge } from '../support/cluster-window.ts';
import { startFixtureApp, type FixtureApp } from '../fixtures/app/server.ts';
import { pngOf } from '@svc/core/visual/test-png';
import { joinAs, openBrowser, signInAs as signIn } from './browser.ts';

type TestServer = Awaited<ReturnType<typeof startTestServer>>;

interface Membership {
  organization_id: string;
  organization_name: string;
  role: string;
}

let server: TestServer;
let browser: Browser;
let page: Page;
/** Uncaught page errors and CSP violations seen in the browser. */
const browserProblems: string[] = [];
/** Everything the browser logged as an error (a failed request is logged too: "Failed to load resource"). */
const consoleErrors: string[] = [];
/** The page's requests to POST /api/auth/refresh, with the status each was answered with. */
const refreshes: number[] = [];
/** The page's POST /api/v1/projects requests. */
const projectPosts: string[] = [];

/** Organization id → name of the project seeded into it through the API. */
const seeded = new Map<string, string>();
const seededUrls = new Map<string, string>();
let memberships: Membership[] = [];
let defaultOrgId: string;
let accessToken: string;

async function call(
  path: string,
  { method = 'GET', body, org }: { method?: string; body?: unknown; org?: string } = {},
): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (accessToken) headers.Authorization = `Bearer ${accessToken}`;
  if (org) headers['X-Organization-ID'] = org;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(new URL(path, server.url), {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

const pathOf = (page: Page) => new URL(page.url()).pathname;

const rowNames = () => page.getByTestId('project-name').allTextContents();

describe('dashboard shell', () => {
  beforeAll(async () => {
    server = await startTestServer();

    // Seed through the API: sign in, add a second organization, one project in each.
    const login = await call('/api/auth/login', {
      method: 'POST',
      body: { email: server.admin.email, password: server.admin.password },
    });
    expect(login.status).toBe(200);
    accessToken = login.body.access_token;

    const created = await call('/api/organizations', { method: 'POST', body: { name: 'Second Org' } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const secondOrgId: string = created.body.id ?? created.body.organization?.id;
    expect(secondOrgId).toBeTruthy();

    for (const [org, name, app_url] of [
      [server.admin.organizationId, 'Alpha checkout', 'https://alpha.example.com'],
      [secondOrgId, 'Beta onboarding', 'https://beta.example.com'],
    ] as const) {
      const project = await call('/api/v1/projects', { method: 'POST', org, body: { name, app_url } });
      expect(project.status, JSON.stringify(project.body)).toBe(201);
      seeded.set(org, name);
      seededUrls.set(org, app_url);
    }

    const me = await call('/api/v1/users/me');
    expect(me.status).toBe(200);
    memberships = me.body.memberships;
    defaultOrgId = me.body.default_organization_id ?? server.admin.organizationId;
    expect(memberships.map((m) => m.organization_id).sort()).toEqual([server.admin.organizationId, secondOrgId].sort());

    ({ browser, page } = await openBrowser(browserProblems));
    page.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text());
    });
    page.on('response', (response) => {
      if (new URL(response.url()).pathname === '/api/auth/refresh') refreshes.push(response.status());
    });
    page.on('request', (request) => {
      if (request.method() === 'POST' && new URL(request.url()).pathname === '/api/v1/projects') projectPosts.push(request.postData() ?? '');
    });
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('sends an unauthenticated visitor to the sign-in page', async () => {
    await page.goto(new URL('/', server.url).href);
    expect(pathOf(page)).toBe('/sign-in');
    expect(new URL(page.url()).searchParams.get('next')).toBe('/');
    await page.getByTestId('email').waitFor();
    await page.getByTestId('password').waitFor();
    // With no session made in this browser there is nothing to renew: the page asks for the
    // password at once, without a refresh request that could only be refused (401, logged
    // by the browser as a failed request).
    await expect.poll(() => page.getByTestId('email').evaluate((node) => node === document.activeElement)).toBe(true);
    expect(refreshes).toEqual([]);
    expect(consoleErrors).toEqual([]);
  });

  it('shows the error for a wrong password', async () => {
    await page.getByTestId('email').fill(server.admin.email);
    await page.getByTestId('password').fill(`${server.admin.password}-wrong`);
    await page.getByTestId('sign-in-submit').click();
    const error = page.getByTestId('sign-in-error');
    await error.waitFor({ state: 'visible' });
    expect((await error.textContent())?.trim()).not.toBe('');
    expect(pathOf(page)).toBe('/sign-in');
  });

  it('signs in and shows the shell with the user and the default organization', async () => {
    await page.getByTestId('password').fill(server.admin.password);
    await page.getByTestId('sign-in-submit').click();
    await page.waitForURL((url) => url.pathname === '/');

    await expect.poll(() => page.getByTestId('user-email').textContent()).toBe(server.admin.email);
    const switcher = page.getByTestId('org-switcher');
    expect(await switcher.locator('option').allTextContents()).toEqual(memberships.map((m) => m.organization_name));
    expect(await switcher.inputValue()).toBe(defaultOrgId);
    await expect.poll(rowNames).toEqual([seeded.get(defaultOrgId)]);
    expect(await page.getByTestId('project-row').first().textContent()).toContain(seededUrls.get(defaultOrgId));
    expect(await page.getByTestId('new-project-form').isVisible()).toBe(true);
  });

  it('switching the organization reloads the list', async () => {
    const other = memberships.find((m) => m.organization_id !== defaultOrgId)!;
    await page.getByTestId('org-switcher').selectOption(other.organization_id);
    await expect.poll(rowNames).toEqual([seeded.get(other.organization_id)]);

    // The choice is remembered across reloads.
    await page.reload();
    await expect.poll(rowNames).toEqual([seeded.get(other.organization_id)]);
    expect(await page.getByTestId('org-switcher').inputValue()).toBe(other.organization_id);
  });

  it('shows validation errors next to the new-project form', async () => {
    const errorsBefore = consoleErrors.length;
    await page.getByTestId('new-project-name').fill('');
    await page.getByTestId('new-project-url').fill('not a url');
    await page.getByTestId('new-project-submit').click();
    await page.getByTestId('new-project-name-error').waitFor({ state: 'visible' });
    await page.getByTestId('new-project-url-error').waitFor({ state: 'visible' });
    expect(await page.getByTestId('new-project-name-error').textContent()).toBe('This field is required.');
    expect(await page.getByTestId('new-project-url-error').textContent()).toBe('Enter an http or https URL, e.g. https://staging.example.com.');
    expect(await page.getByTestId('new-project-name').getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByTestId('new-project-url').getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByTestId('new-project-name').evaluate((node) => node === document.activeElement)).toBe(true);
    // Checked in the page: nothing was sent (the API would only have answered 400).
    expect(projectPosts).toEqual([]);
    // A name with a good URL is still one the page sends only when both are right.
    await page.getByTestId('new-project-name').fill('Not sent');
    await page.getByTestId('new-project-submit').click();
    await expect.poll(() => page.getByTestId('new-project-name-error').isVisible()).toBe(false);
    expect(await page.getByTestId('new-project-url-error').isVisible()).toBe(true);
    expect(await page.getByTestId('new-project-name').getAttribute('aria-invalid')).toBeNull();
    expect(projectPosts).toEqual([]);
    expect(consoleErrors.slice(errorsBefore)).toEqual([]);
    expect((await call('/api/v1/projects', { org: await page.getByTestId('org-switcher').inputValue() })).body.items.map((p: { name: string }) => p.name)).not.toContain('Not sent');
  });

  it('creates a project through the form in the selected organization', async () => {
    const orgId = await page.getByTestId('org-switcher').inputValue();
    await page.getByTestId('new-project-name').fill('Gamma from the browser');
    await page.getByTestId('new-project-url').fill('https://gamma.example.com');
    await page.getByTestId('new-project-submit').click();

    await expect.poll(async () => (await rowNames()).sort()).toEqual([seeded.get(orgId), 'Gamma from the browser'].sort());
    expect(await page.getByTestId('new-project-name-error').isVisible()).toBe(false);
    expect(await page.getByTestId('new-project-name').inputValue()).toBe('');

    // It really is stored, in that organization only.
    const inOrg = await call('/api/v1/projects', { org: orgId });
    expect(inOrg.body.items.map((p: { name: string }) => p.name)).toContain('Gamma from the browser');
    const elsewhere = await call('/api/v1/projects', { org: memberships.find((m) => m.organization_id !== orgId)!.organization_id });
    expect(elsewhere.body.items.map((p: { name: string }) => p.name)).not.toContain('Gamma from the browser');
  });

  it("edits a project's name and app URL in the side form (a wrong URL was the API's to fix), then it is the new-project form again", async () => {
    const orgId = await page.getByTestId('org-switcher').inputValue();
    const stored = async () => (await call('/api/v1/projects', { org: orgId })).body.items.find((p: { name: string }) => p.name.startsWith('Gamma'));
    const row = () => page.getByTestId('project-row').filter({ hasText: 'Gamma' });
    await row().getByTestId('project-edit').click();
    await expect.poll(() => page.getByTestId('new-project-heading').textContent()).toBe('Edit project · Gamma from the browser');
    expect(await page.getByTestId('new-project-url').inputValue()).toBe('https://gamma.example.com');
    expect(await page.getByTestId('new-project-name').evaluate((node) => node === document.activeElement)).toBe(true);
    expect(await page.getByTestId('new-project-submit').textContent()).toBe('Save');

    await page.getByTestId('new-project-url').fill('not a url');
    await page.getByTestId('new-project-submit').click();
    await page.getByTestId('new-project-url-error').waitFor({ state: 'visible' });
    await page.getByTestId('new-project-name').fill('Gamma renamed');
    await page.getByTestId('new-project-url').fill('https://gamma-staging.example.com');
    await page.getByTestId('new-project-submit').click();
    await expect.poll(() => page.getByTestId('new-project-heading').textContent()).toBe('New project');
    await expect.poll(async () => (await stored())?.app_url).toBe('https://gamma-staging.example.com');
    expect((await stored()).name).toBe('Gamma renamed');
    await expect.poll(() => row().getByTestId('project-name').textContent()).toBe('Gamma renamed');
    expect(await page.getByTestId('new-project-name').inputValue()).toBe('');

    // An emptied URL removes it; Cancel leaves the project as it is.
    await row().getByTestId('project-edit').click();
    await page.getByTestId('new-project-url').fill('');
    await page.getByTestId('new-project-name').fill('Gamma from the browser');
    await page.getByTestId('new-project-submit').click();
    await expect.poll(async () => (await stored())?.app_url).toBeNull();
    await row().getByTestId('project-edit').click();
    await page.getByTestId('new-project-name').fill('never saved');
    await page.getByTestId('new-project-cancel').click();
    expect(await page.getByTestId('new-project-heading').textContent()).toBe('New project');
    expect((await stored()).name).toBe('Gamma from the browser');
    // Back as it was for the tests below.
    const restored = await call(`/api/v1/projects/${(await stored()).id}`, { method: 'PATCH', org: orgId, body: { app_url: 'https://gamma.example.com' } });
    expect(restored.status).toBe(200);
  });

  it("edits a project's environment: a variable shows its value, a secret never does; bad names are explained", async () => {
    const orgId = await page.getByTestId('org-switcher').inputValue();
    const projectId = (await call('/api/v1/projects', { org: orgId })).body.items.find((p: { name: string }) => p.name === 'Gamma from the browser').id;
    await page.getByTestId('project-row').filter({ hasText: 'Gamma from the browser' }).getByTestId('project-environment').click();
    await expect.poll(() => page.getByTestId('environment-heading').textContent()).toBe('Environment · Gamma from the browser');
    await expect.poll(() => page.getByTestId('environment-status').textContent()).toBe('No variables yet.');

    const save = async (name: string, value: string, secret = false) => {
      await page.getByTestId('environment-name').fill(name);
      await page.getByTestId('environment-value').fill(value);
      await page.getByTestId('environment-secret').setChecked(secret);
      await page.getByTestId('environment-save').click();
    };
    await save('BASE_PATH', '/shop');
    // The form is busy until the first save's answer: the next save waits for its row.
    await expect.poll(() => page.getByTestId('environment-row-name').allTextContents()).toEqual(['BASE_PATH']);
    await save('DATABASE_URL', 'postgres://app:s3cr3t-pw@db.internal/shop', true);
    const rows = page.getByTestId('environment-row');
    await expect.poll(() => page.getByTestId('environment-row-name').allTextContents()).toEqual(['BASE_PATH', 'DATABASE_URL']);
    expect(await rows.filter({ hasText: 'BASE_PATH' }).getByTestId('environment-row-value').textContent()).toBe('/shop');
    expect(await rows.filter({ hasText: 'DATABASE_URL' }).getByTestId('environment-row-value').textContent()).toBe('secret');
    expect(await page.getByTestId('environment').textContent()).not.toContain('s3cr3t-pw');
    // The form is empty again, its value field back to plain text.
    expect(await page.getByTestId('environment-value').inputValue()).toBe('');
    expect(await page.getByTestId('environment-value').getAttribute('type')).toBe('text');

    await save('9 lives', 'x');
    await page.getByTestId('environment-name-error').waitFor({ state: 'visible' });
    expect(await page.getByTestId('environment-name').getAttribute('aria-invalid')).toBe('true');

    // Stored through the API, the secret's value withheld; deleting from the panel removes it.
    const stored = await call(`/api/v1/projects/${projectId}/environment`, { org: orgId });
    expect(stored.body.items.map((v: { name: string; value: string | null }) => [v.name, v.value])).toEqual([['BASE_PATH', '/shop'], ['DATABASE_URL', null]]);
    // A delete asks first; No deletes nothing.
    const asked: string[] = [];
    page.once('dialog', (dialog) => {
      asked.push(dialog.message());
      void dialog.dismiss();
    });
    await rows.filter({ hasText: 'DATABASE_URL' }).getByTestId('environment-delete').click();
    await expect.poll(() => asked).toEqual(['Delete the secret DATABASE_URL? Its value cannot be read back: to restore it you need the value itself.']);
    expect((await call(`/api/v1/projects/${projectId}/environment`, { org: orgId })).body.items).toHaveLength(2);
    page.once('dialog', (dialog) => void dialog.accept());
    await rows.filter({ hasText: 'BASE_PATH' }).getByTestId('environment-delete').click();
    await expect.poll(() => page.getByTestId('environment-row-name').allTextContents()).toEqual(['DATABASE_URL']);
    expect((await call(`/api/v1/projects/${projectId}/environment`, { org: orgId })).body.items).toHaveLength(1);

    await page.getByTestId('environment-close').click();
    expect(await page.getByTestId('environment').isVisible()).toBe(false);
  });

  it('creates an API key for an assistant: shown once with the MCP command, works at /mcp, revoked from the list', async () => {
    const orgId = await page.getByTestId('org-switcher').inputValue();
    await page.getByTestId('api-keys').waitFor({ state: 'visible' });
    expect(await page.getByTestId('mcp-url').textContent()).toBe(`${server.url}/mcp`);
    expect(await page.getByTestId('device-login-command').textContent()).toBe(`npx svc login --server ${server.url}`);

    await page.getByTestId('api-key-create').click(); // no name
    await page.getByTestId('api-key-name-error').waitFor({ state: 'visible' });
    await page.getByTestId('api-key-name').fill('assistant on my laptop');
    await page.getByTestId('api-key-scope').selectOption('read');
    await page.getByTestId('api-key-create').click();
    await page.getByTestId('api-key-created').waitFor({ state: 'visible' });
    const key = (await page.getByTestId('api-key-secret').textContent())!;
    expect(key).toMatch(/^svc_sk_[A-Za-z0-9_-]{43}$/);
    expect(await page.getByTestId('api-key-mcp-command').textContent()).toBe(`claude mcp add --transport http svc ${server.url}/mcp --header "Authorization: Bearer ${key}"`);
    const row = page.getByTestId('api-key-row').filter({ hasText: 'assistant on my laptop' });
    await expect.poll(() => row.getByTestId('api-key-row-detail').textContent()).toMatch(new RegExp(`^${key.slice(0, 12)}.*… · read · last used never$`));

    // The key is the organization's, read-only, and opens the gateway.
    const stored = await call('/api/api-keys', { org: orgId });
    expect(stored.body.items.find((k: { name: string }) => k.name === 'assistant on my laptop')).toMatchObject({ permissions: ['read'], revoked_at: null });
    const initialize = () =>
      fetch(`${server.url}/mcp`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'dashboard-test', version: '1' } } }),
      });
    expect((await initialize()).status).toBe(200);

    // Shown once: a reload no longer has it.
    await page.reload();
    await page.getByTestId('api-keys').waitFor({ state: 'visible' });
    expect(await page.getByTestId('api-key-created').isVisible()).toBe(false);
    expect(await page.content()).not.toContain(key);

    page.once('dialog', (dialog) => void (dialog.message().startsWith('Revoke the API key “assistant on my laptop”?') ? dialog.accept() : dialog.dismiss()));
    await page.getByTestId('api-key-row').filter({ hasText: 'assistant on my laptop' }).getByTestId('api-key-revoke').click();
    await page.getByTestId('api-key-row').filter({ hasText: 'assistant on my laptop' }).getByTestId('api-key-revoked').waitFor();
    expect((await initialize()).status).toBe(401);
  });

  it("shows a project's visual baselines with their images, and deletes one", async () => {
    const orgId = await page.getByTestId('org-switcher').inputValue();
    const projectId = (await call('/api/v1/projects', { org: orgId })).body.items.find((p: { name: string }) => p.name === 'Gamma from the browser').id;
    const test = await call('/api/tests', { method: 'POST', org: orgId, body: { project_id: projectId, name: 'checkout looks right', type: 'ui' } });
    expect(test.status, JSON.stringify(test.body)).toBe(201);
    const image = Buffer.from(pngOf(64, 40, [0, 102, 204])).toString('base64');
    const accepted = await call('/api/visual/baselines', { method: 'POST', org: orgId, body: { test_id: test.body.id, name: 'checkout page', image } });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(201);

    await page.getByTestId('project-row').filter({ hasText: 'Gamma from the browser' }).getByTestId('project-baselines').click();
    await expect.poll(() => page.getByTestId('baselines-heading').textContent()).toBe('Visual baselines · Gamma from the browser');
    const row = page.getByTestId('baseline-row');
    await expect.poll(() => row.getByTestId('baseline-name').allTextContents()).toEqual(['checkout page']);
    expect(await row.getByTestId('baseline-detail').textContent()).toContain("test “checkout looks right” · 64×40");
    // The image itself is loaded (fetched with the session, shown from an object URL).
    await expect.poll(() => row.getByTestId('baseline-image').evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(64);

    page.once('dialog', (dialog) => void (dialog.message().startsWith('Delete the baseline “checkout page”?') ? dialog.accept() : dialog.dismiss()));
    await row.getByTestId('baseline-delete').click();
    await expect.poll(() => page.getByTestId('baselines-status').textContent()).toMatch(/^No baselines yet/);
    expect((await call(`/api/visual/baselines?project_id=${projectId}`, { org: orgId })).body.items).toEqual([]);
    await page.getByTestId('baselines-close').click();
    expect(await page.getByTestId('baselines').isVisible()).toBe(false);
  });

  it('renews an expired access token from the refresh cookie without leaving the page', async () => {
    await page.context().clearCookies({ name: 'svc_session' });
    await page.getByTestId('org-switcher').selectOption(defaultOrgId);
    await expect.poll(rowNames).toEqual([seeded.get(defaultOrgId)]);
    expect(pathOf(page)).toBe('/');
    const cookies = await page.context().cookies();
    expect(cookies.map((c) => c.name)).toContain('svc_session');
  });

  it('a full page load with an expired access token resumes the session from the refresh cookie', async () => {
    await page.context().clearCookies({ name: 'svc_session' });
    await page.goto(new URL('/', server.url).href);
    await page.waitForURL((url) => url.pathname === '/');
    await expect.poll(rowNames).toEqual([seeded.get(defaultOrgId)]);
  });

  it('signs out back to the sign-in page, after which / redirects again', async () => {
    // The session was renewed from the refresh cookie above, each time accepted.
    expect(refreshes.length).toBeGreaterThan(0);
    expect(refreshes.every((status) => status === 200)).toBe(true);
    const renewals = refreshes.length;
    const errorsBefore = consoleErrors.length;
    await page.getByTestId('sign-out').click();
    await page.waitForURL((url) => url.pathname === '/sign-in');

    await page.goto(new URL('/', server.url).href);
    expect(pathOf(page)).toBe('/sign-in');
    // Signed out: nothing left to renew, so the sign-in page does not try.
    await expect.poll(() => page.getByTestId('email').evaluate((node) => node === document.activeElement)).toBe(true);
    expect(refreshes).toHaveLength(renewals);
    expect(consoleErrors.slice(errorsBefore)).toEqual([]);
    expect(browserProblems).toEqual([]);
  });

  it('a session the browser thought it had, but the server refused, is tried once only', async () => {
    // As after the refresh cookie expired: the page still has its mark of a session.
    await page.evaluate(() => localStorage.setItem('svc.session', '1'));
    const tried = refreshes.length;
    await page.reload();
    await expect.poll(() => refreshes.length).toBe(tried + 1);
    expect(refreshes.at(-1)).toBe(401);
    await expect.poll(() => page.getByTestId('email').evaluate((node) => node === document.activeElement)).toBe(true);
    expect(pathOf(page)).toBe('/sign-in');
    // The refusal is remembered: the next visit asks for the password straight away.
    await page.reload();
    await expect.poll(() => page.getByTestId('email').evaluate((node) => node === document.activeElement)).toBe(true);
    expect(refreshes).toHaveLength(tried + 1);
    expect(browserProblems).toEqual([]);
  });
});

// The insights panel over real runs: two API tests against the fixture app, one steady and one
// flaky (the fixture's /api/flaky/<key> answers 200 on odd calls and 503 on even ones), run
// three times through the run graph of the local runtime.
describe('insights panel', () => {
  let insights: TestServer;
  let fixture: FixtureApp;
  let insightsBrowser: Browser;
  let tab: Page;
  let api: ReturnType<typeof client>;
  let projectId: string;
  let steadyId: string;
  let flakyId: string;
  /** Runs of the project, oldest first. */
  const runIds: string[] = [];
  const problems: string[] = [];

  const PROJECT = 'Delta insights';
  const EMPTY_PROJECT = 'Echo without runs';

  /** Runs the project's two tests once and waits for the run to finish; returns each test's status. */
  async function runBoth(): Promise<Map<string, string>> {
    const started = await api.post('/api/v1/test/run', { project_id: projectId, test_ids: [steadyId, flakyId] });
    expect(started.status, started.text).toBe(201);
    const runId: string = started.body.run.id;
    await expect
      .poll(async () => (await api.get(`/api/v1/test/status/${runId}`)).body.run.status, { timeout: 30_000, interval: 100 })
      .toMatch(/^(completed|failed|cancelled)$/);
    runIds.push(runId);
    const results = await api.get(`/api/v1/tests/${runId}/results`);
    expect(results.status).toBe(200);
    return new Map(results.body.items.map((r: { test_id: string; status: string }) => [r.test_id, r.status]));
  }

  /** Opens the panel of a project from its row. */
  async function openInsightsOf(name: string) {
    await tab.getByTestId('project-row').filter({ hasText: name }).getByTestId('project-insights').click();
    await expect.poll(() => tab.getByTestId('insights-heading').textContent()).toBe(`Insights · ${name}`);
  }

  beforeAll(async () => {
    fixture = await startFixtureApp();
    insights = await startTestServer();
    const { admin } = insights;
    const login = await client(insights.url).post('/api/auth/login', { email: admin.email, password: admin.password });
    expect(login.status, login.text).toBe(200);
    api = client(insights.url, { token: login.body.access_token, org: admin.organizationId });

    const project = await api.post('/api/v1/projects', { name: PROJECT, app_url: fixture.url });
    expect(project.status, project.text).toBe(201);
    projectId = project.body.id;
    expect((await api.post('/api/v1/projects', { name: EMPTY_PROJECT })).status).toBe(201);

    const apiTest = async (name: string, path: string) => {
      const created = await api.post('/api/tests', {
        project_id: projectId,
        name,
        type: 'api',
        steps: [{ type: 'request', method: 'GET', url: `${fixture.url}${path}` }],
        assertions: [{ type: 'status', equals: 200 }],
      });
      expect(created.status, created.text).toBe(201);
      return created.body.id as string;
    };
    steadyId = await apiTest('items are listed', '/api/items');
    // A key of its own, so the odd/even count starts here whatever else called the fixture.
    flakyId = await apiTest('flaky endpoint answers', `/api/flaky/insights-${randomUUID()}`);

    ({ browser: insightsBrowser, page: tab } = await openBrowser(problems));
  });

  afterAll(async () => {
    await insightsBrowser?.close();
    await insights?.stop();
    await fixture?.close();
  });

  it('runs the two tests three times: the steady one always passes, the flaky one passes, fails, passes', async () => {
    const outcomes = [];
    for (let i = 0; i < 3; i++) outcomes.push(await runBoth());
    expect(outcomes.map((o) => o.get(steadyId))).toEqual(['passed', 'passed', 'passed']);
    expect(outcomes.map((o) => o.get(flakyId))).toEqual(['passed', 'failed', 'passed']);
  }, 120_000);

  it("shows a project's score, flaky tests, heatmap, latest runs and untested pages; Close hides it", async () => {
    await tab.goto(new URL('/', insights.url).href);
    await tab.getByTestId('email').fill(insights.admin.email);
    await tab.getByTestId('password').fill(insights.admin.password);
    await tab.getByTestId('sign-in-submit').click();
    await tab.waitForURL((url) => url.pathname === '/');
    await openInsightsOf(PROJECT);
    const panel = tab.getByTestId('insights');
    await panel.waitFor({ state: 'visible' });

    // Score and grade, as the API computes them; one bar per component.
    const score = (await api.get(`/api/quality/score?project_id=${projectId}`)).body;
    expect(score.score).not.toBeNull();
    await expect.poll(() => tab.getByTestId('insights-score').textContent()).toBe(String(Math.round(score.score)));
    expect(await tab.getByTestId('insights-grade').textContent()).toMatch(/^[A-F]$/);
    expect(await tab.getByTestId('insights-grade').textContent()).toBe(score.grade);
    expect(await tab.getByTestId('insights-component-name').allTextContents()).toEqual(['Pass rate', 'Stability', 'Coverage', 'Maintenance']);

    // The flaky test ranks first, badged, its history passed-failed-passed.
    const flakyRow = tab.getByTestId('insights-flaky-row').first();
    await flakyRow.waitFor();
    expect(await flakyRow.getByTestId('insights-flaky-name').textContent()).toBe('flaky endpoint answers');
    expect(await flakyRow.getByTestId('insights-flaky-badge').isVisible()).toBe(true);
    const history = flakyRow.getByTestId('insights-history');
    expect(await history.getAttribute('title')).toBe('PFP');
    expect(await history.getAttribute('aria-label')).toContain('PFP');
    expect(await history.locator('.history-mark').evaluateAll((marks) => marks.map((m) => m.className.replace('history-mark history-', '')))).toEqual(['P', 'F', 'P']);

    // One heatmap row per test; the latest runs newest first.
    await expect.poll(() => tab.getByTestId('insights-heatmap-row').count()).toBe(2);
    await expect.poll(() => tab.getByTestId('insights-run').count()).toBe(3);
    expect(await tab.getByTestId('insights-run').evaluateAll((rows) => rows.map((r) => (r as HTMLElement).dataset.runId))).toEqual([...runIds].reverse());
    // A run's time opens it in the run view: the second run, where the flaky test failed.
    await tab.getByTestId('insights-run').nth(1).getByTestId('insights-run-open').click();
    await expect.poll(() => tab.getByTestId('test-run-id').textContent()).toBe(runIds[1]);
    await expect.poll(() => tab.getByTestId('test-result-row').filter({ hasText: 'flaky endpoint answers' }).getByTestId('test-result-status').textContent(), { timeout: 15_000 }).toBe('failed');
    await tab.getByTestId('tests-close').click();

    // No discovery session: the gaps section says how to get one.
    await expect.poll(() => tab.getByTestId('insights-gaps-status').textContent()).toBe("No completed discovery session: Discover & test (on the project's row) crawls the app; its pages no test reaches then show here.");
    // One failure is no cluster.
    await expect.poll(() => tab.getByTestId('insights-clusters-status').textContent()).toBe('No failure cluster in the last 30 days (3 failures with the same error in the same 15-minute block of the clock, e.g. 10:00–10:15, make one).');

    await tab.getByTestId('insights-close').click();
    await panel.waitFor({ state: 'hidden' });
    expect(await tab.getByTestId('insights-score').count()).toBe(0);
  });

  it('shows a failure cluster: tests that failed the same way within 15 minutes, with the likely cause', async () => {
    const missing: string[] = [];
    for (const name of ['stock is listed', 'prices are listed', 'offers are listed']) {
      const created = await api.post('/api/tests', {
        project_id: projectId, name, type: 'api',
        steps: [{ type: 'request', method: 'GET', url: `${fixture.url}/api/not-there/${randomUUID()}` }],
        assertions: [{ type: 'status', equals: 200 }],
      });
      expect(created.status, created.text).toBe(201);
      missing.push(created.body.id);
    }
    await awayFromClusterWindowEdge();
    const started = await api.post('/api/v1/test/run', { project_id: projectId, test_ids: missing, healing_enabled: false });
    await expect.poll(async () => (await api.get(`/api/v1/test/status/${started.body.run.id}`)).body.run.status, { timeout: 30_000, interval: 100 }).toBe('completed');
    // Stream analytics works from the events, a moment after the run.
    await expect.poll(async () => (await api.get(`/api/analytics/failure-clusters?project_id=${projectId}`)).body.items.length, { timeout: 15_000 }).toBe(1);

    await openInsightsOf(PROJECT);
    const row = tab.getByTestId('insights-clusters-row');
    await expect.poll(() => row.count()).toBe(1);
    expect(await row.getByTestId('insights-clusters-signature').textContent()).toMatch(/^assertion: /);
    expect(await row.getByTestId('insights-clusters-cause').textContent()).toBe('Likely: the application behaviour changed for a shared flow');
    // The flaky test's failure a moment before had the same error, numbers aside (503 where
    // these got 404): it is one of them, unless a 15-minute window began in between.
    const names = (await row.getByTestId('insights-clusters-tests').textContent())!.split(', ').sort();
    expect(names.filter((n) => n !== 'flaky endpoint answers')).toEqual(['offers are listed', 'prices are listed', 'stock is listed']);
    await tab.getByTestId('insights-close').click();
    expect(problems).toEqual([]);
  }, 90_000);

  it('drops an answer that arrives after the panel switched to another project', async () => {
    const isSlowScore = (url: URL) => url.pathname === '/api/quality/score' && url.searchParams.get('project_id') === projectId;
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let asked!: () => void;
    const wasAsked = new Promise<void>((resolve) => (asked = resolve));
    await tab.route(isSlowScore, async (route) => {
      asked();
      await held;
      await route.continue();
    });

    await openInsightsOf(PROJECT);
    await wasAsked;
    await tab.getByTestId('insights-runs-section').getByTestId('insights-run').first().waitFor(); // the other sections did not wait for it
    await openInsightsOf(EMPTY_PROJECT);
    await expect.poll(() => tab.getByTestId('insights-quality-status').textContent()).toMatch(/^No finished run yet/);

    // Now the first project's score arrives: it must not replace the second project's section.
    const late = tab.waitForResponse((response) => isSlowScore(new URL(response.url())));
    release();
    await (await late).finished();
    await tab.evaluate(() => new Promise((resolve) => setTimeout(resolve, 100))); // let the page handle it, had it wanted to
    expect(await tab.getByTestId('insights-score').count()).toBe(0);
    expect(await tab.getByTestId('insights-quality-status').textContent()).toMatch(/^No finished run yet/);
    expect(await tab.getByTestId('insights-flaky-status').textContent()).toBe('No finished run yet.');
    expect(await tab.getByTestId('insights-run').count()).toBe(0);
    await tab.unroute(isSlowScore);
    expect(problems).toEqual([]);
  });
});

// The schedules panel over the real API: a schedule made in the browser (after the API named
// a bad cron expression), paused and resumed, run now through the run graph against the
// fixture app, and deleted.
describe('schedules panel', () => {
  let scheduled: TestServer;
  let fixture: FixtureApp;
  let schedulesBrowser: Browser;
  let tab: Page;
  let api: ReturnType<typeof client>;
  let projectId: string;
  let scheduleId: string;
  const problems: string[] = [];

  const PROJECT = 'Foxtrot nightly';
  const row = () => tab.getByTestId('schedule-row');

  /** Opens the panel of the project from its row. */
  async function openSchedulesOf(name: string) {
    await tab.getByTestId('project-row').filter({ hasText: name }).getByTestId('project-schedules').click();
    await expect.poll(() => tab.getByTestId('schedules-heading').textContent()).toBe(`Schedules · ${name}`);
  }

  beforeAll(async () => {
    fixture = await startFixtureApp();
    scheduled = await startTestServer();
    const { admin } = scheduled;
    const login = await client(scheduled.url).post('/api/auth/login', { email: admin.email, password: admin.password });
    expect(login.status, login.text).toBe(200);
    api = client(scheduled.url, { token: login.body.access_token, org: admin.organizationId });
    ({ browser: schedulesBrowser, page: tab } = await openBrowser(problems));
  });

  afterAll(async () => {
    await schedulesBrowser?.close();
    await scheduled?.stop();
    await fixture?.close();
  });

  it('signs in as the owner and creates a project with one API test', async () => {
    await tab.goto(new URL('/', scheduled.url).href);
    await tab.getByTestId('email').fill(scheduled.admin.email);
    await tab.getByTestId('password').fill(scheduled.admin.password);
    await tab.getByTestId('sign-in-submit').click();
    await tab.waitForURL((url) => url.pathname === '/');

    await tab.getByTestId('new-project-name').fill(PROJECT);
    await tab.getByTestId('new-project-url').fill(fixture.url);
    await tab.getByTestId('new-project-submit').click();
    await tab.getByTestId('project-row').filter({ hasText: PROJECT }).waitFor();
    projectId = (await api.get('/api/v1/projects')).body.items.find((p: { name: string }) => p.name === PROJECT).id;

    const test = await api.post('/api/tests', {
      project_id: projectId,
      name: 'items list',
      type: 'api',
      steps: [{ type: 'request', url: '/api/items' }],
      assertions: [{ type: 'status', equals: 200 }],
    });
    expect(test.status, test.text).toBe(201);
  });

  it('names a bad cron expression under its input, keeps what was typed, and lists nothing', async () => {
    await openSchedulesOf(PROJECT);
    await expect.poll(() => tab.getByTestId('schedules-status').textContent()).toBe('No schedules yet.');
    // The time zone starts as the browser's own.
    const browserZone = await tab.evaluate(() => Intl.DateTimeFormat().resolvedOptions().timeZone);
    expect(await tab.getByTestId('schedule-timezone').inputValue()).toBe(browserZone);
    expect(await tab.getByTestId('schedule-cron').getAttribute('placeholder')).toBe('0 2 * * *');

    await tab.getByTestId('schedule-cron').fill('61 * * * *');
    await tab.getByTestId('schedule-submit').click();
    const cronError = tab.getByTestId('schedule-cron-error');
    await cronError.waitFor({ state: 'visible' });
    // The API's own words for the problem, under the cron input.
    const refused = await api.post('/api/schedules', { project_id: projectId, name: 'x', cron: '61 * * * *' });
    expect(refused.status).toBe(400);
    const cronIssue = refused.body.error.details.issues.find((i: { path: string }) => i.path === 'cron');
    expect(cronIssue.message).toMatch(/^not a cron expression: .*\S/);
    expect(await cronError.textContent()).toBe(cronIssue.message);
    expect(await tab.getByTestId('schedule-cron').getAttribute('aria-invalid')).toBe('true');
    // The empty name is named too, under its own input; the time zone was fine.
    expect(await tab.getByTestId('schedule-name-error').textContent()).toBe('This field is required.');
    expect(await tab.getByTestId('schedule-timezone-error').isVisible()).toBe(false);
    expect(await tab.getByTestId('schedule-cron').inputValue()).toBe('61 * * * *');
    expect(await row().count()).toBe(0);
    expect((await api.get(`/api/schedules?project_id=${projectId}`)).body.items).toEqual([]);
  });

  it('adds the schedule once corrected: listed with its cron, time zone, enabled, and a next run', async () => {
    await tab.getByTestId('schedule-name').fill('nightly');
    await tab.getByTestId('schedule-cron').fill('0 3 * * *');
    await tab.getByTestId('schedule-timezone').fill('UTC');
    await tab.getByTestId('schedule-submit').click();

    await expect.poll(() => row().getByTestId('schedule-row-name').allTextContents()).toEqual(['nightly']);
    expect(await tab.getByTestId('schedule-cron-error').isVisible()).toBe(false);
    expect(await tab.getByTestId('schedule-cron').inputValue()).toBe('');
    expect(await row().getByTestId('schedule-row-cron').textContent()).toBe('0 3 * * * · UTC');
    expect(await row().getByTestId('schedule-row-state').textContent()).toBe('enabled');
    expect(await row().getByTestId('schedule-row-scope').textContent()).toBe('All tests');
    expect(await row().getByTestId('schedule-row-last').textContent()).toBe('Not run yet');

    const listed = (await api.get(`/api/schedules?project_id=${projectId}`)).body.items;
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ name: 'nightly', cron: '0 3 * * *', timezone: 'UTC', enabled: true, tags: [], test_ids: null });
    scheduleId = listed[0].id;
    // The next run is the API's, at 03:00 UTC, shown in local time.
    expect(new Date(listed[0].next_run_at).getUTCHours()).toBe(3);
    expect(await row().getByTestId('schedule-row-next-at').getAttribute('datetime')).toBe(new Date(listed[0].next_run_at).toISOString());
    expect(await row().getByTestId('schedule-row-next').textContent()).toMatch(/^Next run \S/);
  });

  it('pauses (no next run) and resumes', async () => {
    await row().getByTestId('schedule-toggle').click();
    await expect.poll(() => row().getByTestId('schedule-row-state').textContent()).toBe('paused');
    expect(await row().getByTestId('schedule-row-next').textContent()).toBe('Paused: no next run');
    expect(await row().getByTestId('schedule-toggle').textContent()).toBe('Resume');
    expect((await api.get(`/api/schedules/${scheduleId}`)).body).toMatchObject({ enabled: false, next_run_at: null });

    await row().getByTestId('schedule-toggle').click();
    await expect.poll(() => row().getByTestId('schedule-row-state').textContent()).toBe('enabled');
    expect(await row().getByTestId('schedule-toggle').textContent()).toBe('Pause');
    await row().getByTestId('schedule-row-next-at').waitFor();
    const resumed = (await api.get(`/api/schedules/${scheduleId}`)).body;
    expect(resumed.enabled).toBe(true);
    expect(resumed.next_run_at).not.toBeNull();
  });

  it('runs it now: the run starts, completes against the fixture app, and the row shows it as the last run', async () => {
    await row().getByTestId('schedule-run-now').click();
    await expect.poll(() => tab.getByTestId('schedules-status').textContent()).toMatch(/^Started run [0-9a-f-]{36}$/);
    const startedId = (await tab.getByTestId('schedules-status').textContent())!.replace('Started run ', '');

    let runId = '';
    await expect
      .poll(async () => (runId = (await api.get(`/api/schedules/${scheduleId}`)).body.last_run_id ?? ''), { timeout: 10_000, interval: 100 })
      .not.toBe('');
    expect(runId).toBe(startedId);
    await expect
      .poll(async () => (await api.get(`/api/v1/test/status/${runId}`)).body.run.status, { timeout: 30_000, interval: 100 })
      .toBe('completed');
    const results = await api.get(`/api/v1/tests/${runId}/results`);
    expect(results.body.items.map((r: { status: string }) => r.status)).toEqual(['passed']);

    await tab.getByTestId('schedules-close').click();
    await tab.getByTestId('schedules').waitFor({ state: 'hidden' });
    await openSchedulesOf(PROJECT);
    await expect.poll(() => row().getByTestId('schedule-row-last-run').textContent()).toBe(runId);
    expect(await row().getByTestId('schedule-row-last').textContent()).toMatch(/^Last run \S.* · run [0-9a-f-]{36}$/);
    expect(await row().getByTestId('schedule-row-error').count()).toBe(0);
    // The next run stays where the cron put it.
    await row().getByTestId('schedule-row-next-at').waitFor();
  }, 60_000);

  it('deletes it: the row goes, and so does the schedule', async () => {
    tab.once('dialog', (dialog) => void (dialog.message().startsWith('Delete the schedule') ? dialog.accept() : dialog.dismiss()));
    await row().getByTestId('schedule-delete').click();
    await expect.poll(() => tab.getByTestId('schedules-status').textContent()).toBe('No schedules yet.');
    expect(await row().count()).toBe(0);
    expect((await api.get(`/api/schedules?project_id=${projectId}`)).body.items).toEqual([]);
    expect(problems).toEqual([]);
  });
});

// The notifications section over the real API: channels added in the browser (after the API
// named a bad URL) that really send to a small HTTP receiver on loopback, a chat endpoint
// that answers 200 and a webhook endpoint that answers 500; the test message, the retries
// and the delivery log as the row shows them; pause and delete; hidden from a member.
describe('notifications section', () => {
  interface Received {
    method: string;
    path: string;
    headers: IncomingHttpHeaders;
    body: string;
  }

  let notified: TestServer;
  let receiver: Server;
  let receiverUrl: string;
  const received: Received[] = [];
  let notificationsBrowser: Browser;
  let tab: Page;
  let api: ReturnType<typeof client>;
  let webhookSecret = '';
  const problems: string[] = [];

  const PROJECT = 'Golf storefront';
  const rows = () => tab.getByTestId('notification-row');
  const rowOf = (name: string) => rows().filter({ has: tab.getByTestId('notification-row-name').getByText(name, { exact: true }) });
  const rowNamesHere = () => tab.getByTestId('notification-row-name').allTextContents();
  const at = (path: string) => received.filter((r) => r.path === path);

  const signInAs = (email: string, password: string) => signIn(tab, notified.url, email, password);

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        const path = req.url ?? '/';
        received.push({ method: req.method ?? '', path, headers: req.headers, body });
        if (path === '/chat') {
          res.writeHead(200, { 'content-type': 'text/plain' });
          res.end('ok');
        } else {
          res.writeHead(500, { 'content-type': 'text/plain' });
          res.end('receiver is down');
        }
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', () => resolve()));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;

    notified = await startTestServer();
    const { admin } = notified;
    const login = await client(notified.url).post('/api/auth/login', { email: admin.email, password: admin.password });
    expect(login.status, login.text).toBe(200);
    api = client(notified.url, { token: login.body.access_token, org: admin.organizationId });
    expect((await api.post('/api/v1/projects', { name: PROJECT })).status).toBe(201);
    ({ browser: notificationsBrowser, page: tab } = await openBrowser(problems));
  });

  afterAll(async () => {
    await notificationsBrowser?.close();
    await notified?.stop();
    await new Promise<void>((resolve) => (receiver ? receiver.close(() => resolve()) : resolve()));
  });

  it('signs in as the admin: the section is shown, empty, with its form at the defaults', async () => {
    await signInAs(notified.admin.email, notified.admin.password);
    await tab.getByTestId('notifications').waitFor({ state: 'visible' });
    await expect.poll(() => tab.getByTestId('notifications-status').textContent()).toBe('No channels yet.');
    expect(await tab.getByTestId('notifications-help').textContent()).toMatch(/Slack-compatible[\s\S]*Mattermost[\s\S]*X-Svc-Signature/);
    await expect.poll(() => tab.getByTestId('notification-project').locator('option').allTextContents()).toEqual(['All projects', PROJECT]);
    expect(await tab.getByTestId('notification-event-run_failed').isChecked()).toBe(true);
    expect(await tab.getByTestId('notification-event-run_recovered').isChecked()).toBe(true);
    expect(await tab.getByTestId('notification-event-run_passed').isChecked()).toBe(false);
  });

  it('names a bad URL under its input, keeps what was typed, and lists nothing', async () => {
    await tab.getByTestId('notification-name').fill('broken');
    await tab.getByTestId('notification-url').fill('not a url');
    await tab.getByTestId('notification-submit').click();
    const urlError = tab.getByTestId('notification-url-error');
    await urlError.waitFor({ state: 'visible' });
    // The API's own words for the problem, under the URL input.
    const refused = await api.post('/api/notifications/channels', { name: 'broken', kind: 'slack', url: 'not a url', events: ['run_failed', 'run_recovered'] });
    expect(refused.status).toBe(400);
    const urlIssue = refused.body.error.details.issues.find((i: { path: string }) => i.path === 'url');
    expect(await urlError.textContent()).toBe(urlIssue.message);
    expect(await tab.getByTestId('notification-url').getAttribute('aria-invalid')).toBe('true');
    expect(await tab.getByTestId('notification-name-error').isVisible()).toBe(false);
    expect(await tab.getByTestId('notification-url').inputValue()).toBe('not a url');
    expect(await rows().count()).toBe(0);
    expect((await api.get('/api/notifications/channels')).body.items).toEqual([]);
  });

  it('adds a Slack-compatible channel for all projects with the default outcomes; no secret for it', async () => {
    await tab.getByTestId('notification-name').fill('qa-alerts');
    await tab.getByTestId('notification-kind').selectOption('slack');
    await tab.getByTestId('notification-url').fill(`${receiverUrl}/chat`);
    await tab.getByTestId('notification-submit').click();

    await expect.poll(rowNamesHere).toEqual(['qa-alerts']);
    const row = rowOf('qa-alerts');
    expect(await row.getByTestId('notification-row-kind').textContent()).toBe('slack');
    expect(await row.getByTestId('notification-row-url').textContent()).toBe(receiverUrl);
    expect(await row.getByTestId('notification-row-project').textContent()).toBe('All projects');
    expect(await row.getByTestId('notification-row-events').textContent()).toBe('On: Failed, Recovered');
    expect(await row.getByTestId('notification-row-state').textContent()).toBe('enabled');
    expect(await tab.getByTestId('notification-url-error').isVisible()).toBe(false);
    expect(await tab.getByTestId('notification-url').getAttribute('aria-invalid')).toBeNull();
    expect(await tab.getByTestId('notification-url').inputValue()).toBe('');
    expect(await tab.getByTestId('notification-created').isVisible()).toBe(false);
    // The row shows where messages go, never the URL itself.
    expect(await tab.getByTestId('notifications-list').textContent()).not.toContain('/chat');

    const listed = (await api.get('/api/notifications/channels')).body.items;
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ name: 'qa-alerts', kind: 'slack', project_id: null, events: ['run_failed', 'run_recovered'], enabled: true });
  });

  it("adds a webhook for failures only: its signing secret is shown once, and it is listed", async () => {
    await tab.getByTestId('notification-name').fill('ci');
    await tab.getByTestId('notification-kind').selectOption('webhook');
    await tab.getByTestId('notification-url').fill(`${receiverUrl}/down`);
    await tab.getByTestId('notification-event-run_recovered').uncheck();
    await tab.getByTestId('notification-submit').click();

    await tab.getByTestId('notification-created').waitFor({ state: 'visible' });
    webhookSecret = (await tab.getByTestId('notification-secret').textContent())!;
    expect(webhookSecret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(await tab.getByTestId('notification-created').textContent()).toContain('Copy it now: it is not shown again.');
    await expect.poll(async () => (await rowNamesHere()).sort()).toEqual(['ci', 'qa-alerts']);
    const row = rowOf('ci');
    expect(await row.getByTestId('notification-row-kind').textContent()).toBe('webhook');
    expect(await row.getByTestId('notification-row-project').textContent()).toBe('All projects');
    expect(await row.getByTestId('notification-row-events').textContent()).toBe('On: Failed');
    // The form is back at its defaults.
    expect(await tab.getByTestId('notification-kind').inputValue()).toBe('slack');
    expect(await tab.getByTestId('notification-event-run_recovered').isChecked()).toBe(true);

    const ci = (await api.get('/api/notifications/channels')).body.items.find((c: { name: string }) => c.name === 'ci');
    expect(ci).toMatchObject({ kind: 'webhook', project_id: null, events: ['run_failed'], enabled: true });
    expect(JSON.stringify(ci)).not.toContain(webhookSecret);

    // Shown once: a reload no longer has it. (Settled: the next tests act on these rows, and a
    // list still being drawn by the start-up would replace a button they just pressed.)
    await tab.reload({ waitUntil: 'networkidle' });
    await expect.poll(async () => (await rowNamesHere()).sort()).toEqual(['ci', 'qa-alerts']);
    expect(await tab.getByTestId('notification-created').isVisible()).toBe(false);
    expect(await tab.content()).not.toContain(webhookSecret);
  });

  it('sends a test message: the chat endpoint gets it (HTTP 200); the failing webhook is tried three times, signed, and the row says 500', async () => {
    const chat = rowOf('qa-alerts');
    await chat.getByTestId('notification-test').click();
    await expect.poll(() => chat.getByTestId('notification-status').textContent()).toBe('Delivered (HTTP 200)');
    expect(at('/chat')).toHaveLength(1);
    expect(at('/chat')[0].method).toBe('POST');
    expect(JSON.parse(at('/chat')[0].body).text).toMatch(/^svc: test message/);

    // Three attempts, 0.5 s and 2 s apart: the button waits for the last one.
    const hook = rowOf('ci');
    await hook.getByTestId('notification-test').click();
    expect(await hook.getByTestId('notification-test').isDisabled()).toBe(true);
    await expect
      .poll(() => hook.getByTestId('notification-status').textContent(), { timeout: 15_000 })
      .toMatch(/^Failed: the endpoint answered 500: receiver is down \(3 attempts\)$/);
    expect(await hook.getByTestId('notification-test').isDisabled()).toBe(false);
    const tries = at('/down');
    expect(tries).toHaveLength(3);
    // Each try is signed with the secret the form showed.
    for (const t of tries) {
      const [, ts, v1] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(t.headers['x-svc-signature']))!;
      expect(v1).toBe(createHmac('sha256', webhookSecret).update(`${ts}.${t.body}`).digest('hex'));
      expect(JSON.parse(t.body).event).toBe('test');
    }
  }, 30_000);

  it("opens a channel's deliveries under its row: the failed test, with its 500; closes them again", async () => {
    const hook = rowOf('ci');
    await hook.getByTestId('notification-logs').click();
    expect(await hook.getByTestId('notification-logs').getAttribute('aria-expanded')).toBe('true');
    await expect.poll(() => hook.getByTestId('notification-log').count()).toBe(1);
    const log = hook.getByTestId('notification-log');
    expect(await log.getByTestId('notification-log-status').textContent()).toBe('Failed');
    expect(await log.getByTestId('notification-log-detail').textContent()).toMatch(/^Test message · HTTP 500 · 3 attempts · the endpoint answered 500/);
    expect(await log.getByTestId('notification-log-time').getAttribute('datetime')).toMatch(/^\d{4}-\d\d-\d\dT/);
    // Only this row's deliveries are open.
    expect(await rowOf('qa-alerts').getByTestId('notification-log').count()).toBe(0);

    await hook.getByTestId('notification-logs').click();
    await hook.getByTestId('notification-logs-panel').waitFor({ state: 'hidden' });
    expect(await hook.getByTestId('notification-logs').getAttribute('aria-expanded')).toBe('false');
  });

  it('pauses the webhook and deletes the chat channel', async () => {
    await rowOf('ci').getByTestId('notification-toggle').click();
    await expect.poll(() => rowOf('ci').getByTestId('notification-row-state').textContent()).toBe('paused');
    expect(await rowOf('ci').getByTestId('notification-toggle').textContent()).toBe('Resume');
    const channels = async () => (await api.get('/api/notifications/channels')).body.items as { name: string; enabled: boolean }[];
    expect((await channels()).find((c) => c.name === 'ci')?.enabled).toBe(false);

    tab.once('dialog', (dialog) => void (dialog.message().startsWith('Delete the notification channel “qa-alerts”?') ? dialog.accept() : dialog.dismiss()));
    await rowOf('qa-alerts').getByTestId('notification-delete').click();
    await expect.poll(rowNamesHere).toEqual(['ci']);
    expect((await channels()).map((c) => c.name)).toEqual(['ci']);
    expect(problems).toEqual([]);
  });

  it('is not shown to a member; shown again in an organization where they are an admin', async () => {
    const member = await joinAs(tab, notified.url, api, 'notified-member@example.com', 'member', 'Member own org');
    // The browser remembers the admin's organization, where this person is a member.
    const switcher = tab.getByTestId('org-switcher');
    await tab.getByTestId('project-row').filter({ hasText: PROJECT }).waitFor();
    expect(await switcher.inputValue()).toBe(notified.admin.organizationId);
    expect(await tab.getByTestId('org-name').textContent()).toMatch(/· member$/);
    expect(await tab.getByTestId('notifications').isVisible()).toBe(false);
    expect(await tab.getByTestId('notification-row').count()).toBe(0);
    expect((await client(notified.url, { token: member.token, org: notified.admin.organizationId }).get('/api/notifications/channels')).status).toBe(403);

    // In their own organization they are the admin: the section shows its (empty) list.
    await switcher.selectOption(member.orgId);
    await tab.getByTestId('notifications').waitFor({ state: 'visible' });
    await expect.poll(() => tab.getByTestId('notifications-status').textContent()).toBe('No channels yet.');
    expect(await tab.getByTestId('notification-row').count()).toBe(0);
    await switcher.selectOption(notified.admin.organizationId);
    await tab.getByTestId('notifications').waitFor({ state: 'hidden' });
    expect(problems).toEqual([]);
  });
});
