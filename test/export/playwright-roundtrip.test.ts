import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import chromium from '@sparticuz/chromium';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestDefinition } from '@svc/core/contracts/steps';
import { FlowDefinition } from '@svc/core/contracts/flow';
import { exportPlaywrightProject } from '@svc/core/export/playwright';

/**
 * The exported project runs under the real Playwright Test runner, with svc's Chromium,
 * against a small app served here: the exported tests pass, and a test whose assertion is
 * wrong fails.
 */

const root = join(import.meta.dirname, '..', '..');
const cli = join(root, 'node_modules', '@playwright', 'test', 'cli.js');

const PAGES: Record<string, string> = {
  '/': `<!doctype html><html><head><title>Lamp shop</title></head><body>
    <h1>Welcome</h1>
    <form action="/done" method="get">
      <label for="email">Email</label> <input id="email" name="email" placeholder="you@example.com">
      <label><input type="checkbox" name="terms" id="terms"> I agree</label>
      <select id="size" name="size"><option value="s">Small</option><option value="m">Medium</option></select>
      <button type="submit">Sign in</button>
    </form>
    <ul><li class="item">A</li><li class="item">B</li><li class="item">C</li></ul>
    <a href="/done" data-testid="skip" class="link active">Skip</a>
    <button disabled id="later">Later</button>
  </body></html>`,
  '/done': `<!doctype html><html><head><title>Done</title></head><body>
    <h1>Thanks</h1><p data-testid="greeting">Signed in</p>
  </body></html>`,
  // Throws after a fetch has answered, once the page has loaded (no_console_error).
  '/late': `<!doctype html><html><head><title>Late</title></head><body>
    <h1>Late</h1>
    <script>fetch('/api/orders/o_42').then((r) => r.json()).then(() => setTimeout(() => { throw new Error('Boom failed 500'); }, 200));</script>
  </body></html>`,
};

function app(): Server {
  return createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname === '/api/orders' && req.method === 'POST') {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        const input = JSON.parse(body || '{}');
        res.writeHead(201, { 'content-type': 'application/json', 'x-order': 'o_42' });
        res.end(JSON.stringify({ id: 'o_42', items: [{ sku: input.sku, qty: input.qty }], auth: req.headers.authorization ?? null }));
      });
      return;
    }
    if (url.pathname === '/api/orders/o_42') {
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
      res.end(JSON.stringify({ id: 'o_42', status: 'paid' }));
      return;
    }
    const page = PAGES[url.pathname];
    res.writeHead(page ? 200 : 404, { 'content-type': 'text/html; charset=utf-8' });
    res.end(page ?? '<h1>Not found</h1>');
  });
}

const uiTest = TestDefinition.parse({
  name: 'Sign in and order a lamp',
  type: 'ui',
  tags: ['smoke'],
  timeout_ms: 60_000,
  parameters: { email: 'ann@example.test', size: 'm' },
  steps: [
    { type: 'goto', url: '/' },
    { type: 'assert', assertion: { type: 'title', equals: 'Lamp shop' } },
    { type: 'assert', assertion: { type: 'text', selector: { role: 'heading', name: 'Welcome' }, equals: 'Welcome' } },
    { type: 'fill', selector: { label: 'Email' }, value: '{{email}}' },
    { type: 'assert', assertion: { type: 'value', selector: { placeholder: 'you@example.com' }, contains: '@example.' } },
    { type: 'check', selector: '#terms' },
    { type: 'select', selector: '#size', value: '{{size}}' },
    // The form is accessible once its unlabelled select is left out (a locator, so the export turns it into CSS paths).
    { type: 'assert', assertion: { type: 'accessibility', selector: 'form', exclude: [{ role: 'combobox' }] } },
    { type: 'assert', assertion: { type: 'count', selector: { css: 'li.item' }, equals: 3 } },
    { type: 'assert', assertion: { type: 'count', selector: 'li.item', min: 2, max: 3 } },
    { type: 'assert', assertion: { type: 'attribute', selector: { test_id: 'skip' }, attribute: 'class', contains: 'active' } },
    { type: 'assert', assertion: { type: 'disabled', selector: { xpath: '//button[@id="later"]' } } },
    { type: 'request', method: 'POST', url: '/api/orders', json: { sku: 'LAMP-1', qty: 2 }, auth: { type: 'bearer', token: 't0k' }, save: { orderId: '$.body.id' } },
    { type: 'assert', assertion: { type: 'status', equals: 201 } },
    { type: 'assert', assertion: { type: 'json', path: '$.items[0].sku', equals: 'LAMP-1' } },
    { type: 'assert', assertion: { type: 'json', path: '$.auth', equals: 'Bearer t0k' } },
    { type: 'click', selector: { role: 'button', name: 'Sign in' } },
    { type: 'wait-for', url: '**/done?**' },
    { type: 'assert', assertion: { type: 'url', contains: 'size=m' } },
    { type: 'assert', assertion: { type: 'visible', selector: { text: 'Signed in', exact: true } } },
    { type: 'request', url: '/api/orders/{{orderId}}' },
    { type: 'assert', assertion: { type: 'json', path: '$.status', equals: 'paid' } },
  ],
  assertions: [{ type: 'no_console_error' }],
});

const apiTest = TestDefinition.parse({
  name: 'Order API',
  type: 'api',
  steps: [{ type: 'request', method: 'POST', url: '/api/orders', json: { sku: 'X', qty: 1 }, save: { id: '$.body.id' } }, { type: 'request', url: '/api/orders/{{id}}' }],
  assertions: [
    { type: 'status', in: [200, 304] },
    { type: 'header', header: 'Content-Type', matches: '^application/json' },
    { type: 'json', path: '$.id', exists: true },
    { type: 'response_time', max_ms: 10_000 },
  ],
});

/** A flow used twice with different parameters, one value naming the test's own parameter. */
const signInFlow = FlowDefinition.parse({
  name: 'sign in',
  parameters: [{ name: 'email' }, { name: 'size', default: 's' }],
  steps: [
    { type: 'goto', url: '/' },
    { type: 'fill', selector: { label: 'Email' }, value: '{{email}}' },
    { type: 'select', selector: '#size', value: '{{size}}' },
    { type: 'click', selector: { role: 'button', name: 'Sign in' } },
  ],
});
const flowTest = TestDefinition.parse({
  name: 'Signs in twice through a flow',
  type: 'ui',
  parameters: { who: 'bo@example.test' },
  steps: [
    { type: 'use', flow: 'sign in', with: { email: 'ann@example.test' } },
    { type: 'assert', assertion: { type: 'url', contains: 'size=s' } },
    { type: 'use', flow: 'Sign In', with: { email: '{{who}}', size: 'm' } },
    { type: 'assert', assertion: { type: 'url', contains: 'email=bo%40example.test&size=m' } },
  ],
});

const brokenTest = TestDefinition.parse({
  name: 'Expects the wrong heading',
  type: 'ui',
  steps: [{ type: 'goto', url: '/' }, { type: 'assert', assertion: { type: 'text', selector: 'h1', equals: 'Goodbye' }, timeout_ms: 1000 }],
});

/** /late throws after its fetch: the exported spec waits for the page to settle and sees it. */
const lateErrorTest = TestDefinition.parse({
  name: 'No uncaught error after load',
  type: 'ui',
  steps: [{ type: 'goto', url: '/late' }],
  assertions: [{ type: 'no_console_error', contains: 'Boom' }],
});

/** The page has no lang attribute (html-has-lang, serious). */
const inaccessibleTest = TestDefinition.parse({
  name: 'The whole page is accessible',
  type: 'ui',
  steps: [{ type: 'goto', url: '/' }],
  assertions: [{ type: 'accessibility' }],
});

function writeProject(dir: string, tests: TestDefinition[], baseUrl: string): void {
  for (const f of exportPlaywrightProject(tests, { baseUrl, flows: [signInFlow] })) {
    mkdirSync(dirname(join(dir, f.path)), { recursive: true });
    writeFileSync(join(dir, f.path), f.content);
  }
  // The project resolves @playwright/test from the repository's node_modules.
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir');
}

async function runPlaywright(dir: string): Promise<{ code: number | null; output: string }> {
  const env = {
    ...process.env,
    SVC_CHROMIUM_PATH: await chromium.executablePath(),
    SVC_CHROMIUM_ARGS: JSON.stringify(chromium.args),
    CI: '1',
    FORCE_COLOR: '0',
  };
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, 'test', '--config', join(dir, 'playwright.config.ts'), '--workers', '1'], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c) => (output += c));
    child.stderr.on('data', (c) => (output += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), 150_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

describe('exported Playwright project, run by Playwright Test', () => {
  let server: Server;
  let baseUrl: string;
  const dirs: string[] = [];

  beforeAll(async () => {
    server = app();
    await new Promise<void>((resolve) => server.listen(Number(process.env.SVC_EXPORT_TEST_PORT) || 0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  const project = (tests: TestDefinition[]) => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-pw-export-'));
    dirs.push(dir);
    writeProject(dir, tests, baseUrl);
    return dir;
  };

  it('passes when the app behaves as the tests say', { timeout: 180_000 }, async () => {
    const { code, output } = await runPlaywright(project([uiTest, apiTest]));
    expect(output).toMatch(/2 passed/);
    expect(code, output).toBe(0);
  });

  // A project of its own: svc's Chromium runs single-process, and one Playwright worker cannot open a second UI test's page after a passing one.
  it('runs a test that uses a flow twice: the flow written inline with each use\'s values', { timeout: 180_000 }, async () => {
    const dir = project([flowTest]);
    const spec = readFileSync(join(dir, 'tests', 'signs-in-twice-through-a-flow.spec.ts'), 'utf8');
    expect(spec).toContain('// 7. fill label=Email (flow sign in › step 2)');
    expect(spec).toContain('await page.getByLabel("Email").fill("bo@example.test");');
    const { code, output } = await runPlaywright(dir);
    expect(output).toMatch(/1 passed/);
    expect(code, output).toBe(0);
  });

  it('fails when an exported assertion does not hold', { timeout: 180_000 }, async () => {
    const { code, output } = await runPlaywright(project([brokenTest, inaccessibleTest, lateErrorTest]));
    expect(code, output).not.toBe(0);
    expect(output).toMatch(/3 failed/);
    expect(output).toContain('Uncaught Boom failed 500');
    expect(output).toContain('Goodbye');
    expect(output).toContain('html-has-lang (serious)');
  });
});
