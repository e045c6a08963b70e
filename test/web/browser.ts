// What the dashboard's browser tests share: a headless Chromium that records what went
// wrong in the page, and signing in through the real sign-in page.
import chromium from '@sparticuz/chromium';
import * as pw from 'playwright-core';
import type { Browser, Page } from 'playwright-core';
import { expect } from 'vitest';
import { client, signUp, startTestServer, type Client } from '../support/server.ts';
import { startFixtureApp } from '../fixtures/app/server.ts';

/** Headless Chromium with one page that records uncaught errors and CSP violations in `problems`. */
export async function openBrowser(problems: string[]): Promise<{ browser: Browser; page: Page }> {
  const browser = await pw.chromium.launch({
    executablePath: await chromium.executablePath(),
    args: chromium.args,
    headless: true,
  });
  const page = await browser.newPage({ viewport: { width: 1200, height: 760 } });
  page.setDefaultTimeout(15_000);
  page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
  page.on('console', (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text())) problems.push(`csp: ${message.text()}`);
  });
  return { browser, page };
}

/** Signs in through the sign-in page (from a signed-out state) and waits for the dashboard. */
export async function signInAs(page: Page, serverUrl: string, email: string, password: string): Promise<void> {
  await page.goto(new URL('/', serverUrl).href);
  await page.waitForURL((url) => url.pathname === '/sign-in');
  await page.getByTestId('email').fill(email);
  await page.getByTestId('password').fill(password);
  await page.getByTestId('sign-in-submit').click();
  await page.waitForURL((url) => url.pathname === '/');
  await expect.poll(() => page.getByTestId('user-email').textContent()).toBe(email);
}

/**
 * What a panel's browser test starts from: the real server and the fixture app, an API
 * client signed in as the first admin, one project whose app is the fixture app, and a
 * browser (signed out) whose page records its problems.
 */
export async function startPanelWorld(projectName: string) {
  const fixture = await startFixtureApp();
  const server = await startTestServer();
  const { admin } = server;
  const login = await client(server.url).post('/api/auth/login', { email: admin.email, password: admin.password });
  expect(login.status, login.text).toBe(200);
  const api = client(server.url, { token: login.body.access_token, org: admin.organizationId });
  const project = await api.post('/api/v1/projects', { name: projectName, app_url: fixture.url });
  expect(project.status, project.text).toBe(201);
  const problems: string[] = [];
  const { browser, page } = await openBrowser(problems);
  const projectId = project.body.id as string;
  return {
    server,
    fixture,
    api,
    projectId,
    page,
    problems,
    /** Creates a UI test of the project (fields of `body` win) and returns its id. */
    async createTest(body: Record<string, unknown>): Promise<string> {
      const created = await api.post('/api/tests', { project_id: projectId, type: 'ui', ...body });
      expect(created.status, created.text).toBe(201);
      return created.body.id as string;
    },
    async close() {
      await browser.close();
      await server.stop();
      await fixture.close();
    },
  };
}

/** The run view's row of the case named `name` (a test, or "test [set]"). */
export const resultRowOf = (page: Page, name: string) => page.getByTestId('test-result-row').filter({ has: page.getByTestId('test-result-name').getByText(name, { exact: true }) });

/**
 * Signs the world's admin in, opens the project's tests, runs them all from the dashboard
 * and waits for the run to end (within 90 s).
 */
export async function runAllAsAdmin(world: Awaited<ReturnType<typeof startPanelWorld>>, projectName: string): Promise<void> {
  const { page: tab, server } = world;
  await signInAs(tab, server.url, server.admin.email, server.admin.password);
  await tab.getByTestId('project-row').filter({ hasText: projectName }).getByTestId('project-tests').click();
  await tab.getByTestId('tests-run-all').click();
  await expect.poll(() => tab.getByTestId('test-run-state').textContent(), { timeout: 90_000, interval: 200 }).toMatch(/^(completed|failed|cancelled)$/);
}

/**
 * A new person in the admin's organization with `role`: invited by `admin` (an API client
 * of that organization), signed up with an organization of their own and the password
 * "correct horse battery", the invitation accepted. The page is then signed out of the
 * admin's session and signed in as them.
 */
export async function joinAs(page: Page, serverUrl: string, admin: Client, email: string, role: 'viewer' | 'member', organizationName: string) {
  const invite = await admin.post('/api/teams/invitations', { email, role });
  expect(invite.status, invite.text).toBe(201);
  const person = await signUp(serverUrl, email, organizationName);
  const accepted = await client(serverUrl, { token: person.token }).post('/api/teams/invitations/accept', { token: invite.body.token });
  expect(accepted.status, accepted.text).toBe(200);
  await page.getByTestId('sign-out').click();
  await page.waitForURL((url) => url.pathname === '/sign-in');
  await signInAs(page, serverUrl, email, 'correct horse battery');
  return person;
}
