/**
 * `svc login` end to end: the CLI runs the device flow against the real server, the
 * person approves on the dashboard's /device page in Chromium (signing in on the way),
 * the sign-in is stored for its owner only, `svc mcp` uses it with no credential in its
 * environment (and refreshes it once it expires), and `svc logout` revokes it.
 */
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { client, signUp, startTestServer, type TestServer } from '../support/server.ts';
import { openBrowser } from '../web/browser.ts';

const bin = join(import.meta.dirname, '..', '..', 'node_modules', '.bin', 'svc');
let server: TestServer;
let configDir: string;
let browser: Browser;
let page: Page;
const problems: string[] = [];
let person: Awaited<ReturnType<typeof signUp>>;
let projectId: string;

beforeAll(async () => {
  server = await startTestServer();
  configDir = await mkdtemp(join(tmpdir(), 'svc-login-'));
  person = await signUp(server.url, 'cli-person@example.com', 'CLI org');
  projectId = (await client(server.url, { token: person.token, org: person.orgId }).post('/api/v1/projects', { name: 'cli project' })).body.id;
  ({ browser, page } = await openBrowser(problems));
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await rm(configDir, { recursive: true, force: true });
});

const env = () => ({ ...process.env, SVC_CONFIG_DIR: configDir, SVC_API_KEY: '', SVC_TOKEN: '', SVC_ORGANIZATION_ID: '' });
const credentialsFile = () => join(configDir, 'credentials.json');
const stored = async () => JSON.parse(await readFile(credentialsFile(), 'utf8')).servers[new URL(server.url).origin];

/** Starts `svc login`, resolving with the link it prints and, later, how it ended. */
function startLogin(args: string[]) {
  const child = spawn(bin, ['login', '--server', server.url, ...args], { env: env() });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  const link = new Promise<{ url: string; code: string }>((resolve, reject) => {
    child.stderr.on('data', (d) => {
      stderr += d;
      const m = /open (\S+)\nand check that it shows the code ([A-Z]{4}-[A-Z]{4})/.exec(stderr);
      if (m) resolve({ url: m[1], code: m[2] });
    });
    child.on('exit', () => reject(new Error(`svc login ended before printing a link: ${stderr}`)));
  });
  const ended = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => child.on('exit', (code) => resolve({ code, stdout, stderr })));
  return { link, ended };
}

async function listProjectsOverStdio(): Promise<string[]> {
  const transport = new StdioClientTransport({ command: bin, args: ['mcp', '--server', server.url], env: env() as Record<string, string>, stderr: 'pipe' });
  const agent = new Client({ name: 'stdio-agent', version: '1.0.0' });
  await agent.connect(transport);
  try {
    const listed = (await agent.callTool({ name: 'svc_list_projects', arguments: {} })) as CallToolResult;
    expect(listed.isError).toBeFalsy();
    return (listed.structuredContent as { items: Array<{ id: string }> }).items.map((p) => p.id);
  } finally {
    await agent.close();
  }
}

describe('svc login', () => {
  it('signs the CLI in through the /device page; svc mcp uses and refreshes the stored sign-in; svc logout revokes it', async () => {
    const login = startLogin(['--name', 'test agent']);
    const { url, code } = await login.link;
    expect(url).toBe(`${server.url}/device?user_code=${code}`);

    // Signed out, the link goes through sign-in and comes back.
    await page.goto(url);
    await page.waitForURL((u) => u.pathname === '/sign-in');
    await page.getByTestId('email').fill('cli-person@example.com');
    await page.getByTestId('password').fill('correct horse battery');
    await page.getByTestId('sign-in-submit').click();
    await page.waitForURL((u) => u.pathname === '/device');
    await expect.poll(() => page.getByTestId('device-client').textContent()).toBe('test agent');
    expect(await page.getByTestId('device-code-shown').textContent()).toBe(code);
    await page.getByTestId('device-approve').click();
    await expect.poll(() => page.getByTestId('device-done').textContent()).toContain('Approved');

    const ended = await login.ended;
    expect(ended.code).toBe(0);
    expect(ended.stdout).toContain('as cli-person@example.com in CLI org');
    expect((await stat(credentialsFile())).mode & 0o777).toBe(0o600);
    expect(await stored()).toMatchObject({ email: 'cli-person@example.com', organization_id: person.orgId, client_id: 'test agent' });

    expect(await listProjectsOverStdio()).toEqual([projectId]);

    // An expired access token is refreshed on the way, and the rotated tokens are kept.
    const before = await stored();
    const all = JSON.parse(await readFile(credentialsFile(), 'utf8'));
    all.servers[new URL(server.url).origin].expires_at = new Date(Date.now() - 1000).toISOString();
    await writeFile(credentialsFile(), JSON.stringify(all));
    expect(await listProjectsOverStdio()).toEqual([projectId]);
    const after = await stored();
    expect(after.refresh_token).not.toBe(before.refresh_token);
    expect(Date.parse(after.expires_at)).toBeGreaterThan(Date.now());

    // The person sees the agent on /device (the dashboard's Agents link), and could sign it out there.
    await page.goto(`${server.url}/`);
    await page.getByTestId('agents-link').click();
    await page.waitForURL((u) => u.pathname === '/device');
    await expect.poll(() => page.getByTestId('device-agent-name').allTextContents()).toEqual(['test agent']);

    const out = await promisify(execFile)(bin, ['logout', '--server', server.url], { env: env() });
    expect(out.stdout).toContain(`Signed out of ${new URL(server.url).origin}.`);
    expect(await stored()).toBeUndefined();
    const revoked = await fetch(`${server.url}/oauth/token`, { method: 'POST', body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: after.refresh_token }) });
    expect((await revoked.json()).error).toBe('invalid_grant');
    expect(problems).toEqual([]);
  }, 120_000);

  it('a sign-in denied on the /device page ends svc login with exit code 1 and stores nothing; an agent signed out there stops at once', async () => {
    const login = startLogin([]);
    const { url } = await login.link;
    await page.goto(url); // still signed in from the test before
    await expect.poll(() => page.getByTestId('device-client').textContent()).toMatch(/^svc CLI on /);
    await page.getByTestId('device-deny').click();
    await expect.poll(() => page.getByTestId('device-done').textContent()).toContain('Denied');
    const ended = await login.ended;
    expect(ended.code).toBe(1);
    expect(ended.stderr).toContain('the sign-in was denied in the dashboard');
    expect(await stored()).toBeUndefined();

    // Signing an agent out on /device stops its stored sign-in at once.
    const again = startLogin(['--name', 'short-lived']);
    await page.goto((await again.link).url);
    await page.getByTestId('device-approve').click();
    expect((await again.ended).code).toBe(0);
    await page.goto(`${server.url}/device`);
    const row = page.getByTestId('device-agent-row').filter({ hasText: 'short-lived' });
    await row.getByTestId('device-agent-revoke').click();
    await expect.poll(() => page.getByTestId('device-agents-status').textContent()).toBe('No agents are signed in as you.');
    const refused = await promisify(execFile)(bin, ['mcp', '--server', server.url], { env: env() }).then(() => ({ code: 0, stderr: '' }), (e: { code: number; stderr: string }) => e);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('cannot use');
    expect(refused.stderr).toContain(`no longer works: run svc login --server ${new URL(server.url).origin}`);

    // A mistyped code on the page says so, and nothing is decided.
    await page.goto(`${server.url}/device`);
    await page.getByTestId('device-user-code').fill('BCDF-GHJK');
    await page.getByTestId('device-continue').click();
    await expect.poll(() => page.getByTestId('device-error').textContent()).toContain('not found');
    expect(problems).toEqual([]);
  }, 120_000);

  it('bad usage exits 2 naming the problem; logout without a sign-in says so', async () => {
    const run = (args: string[]) => promisify(execFile)(bin, args, { env: env() }).then((r) => ({ code: 0, ...r }), (e: { code: number; stdout: string; stderr: string }) => e);
    const badUrl = await run(['login', '--server', 'not a url']);
    expect(badUrl.code).toBe(2);
    expect(badUrl.stderr).toContain('--server must be a URL, got "not a url"');
    expect((await run(['login', '--nope'])).code).toBe(2);
    const none = await run(['logout', '--server', 'http://127.0.0.1:9']);
    expect(none).toMatchObject({ code: 0, stdout: 'Not signed in to http://127.0.0.1:9.\n' });
  }, 60_000);
});
