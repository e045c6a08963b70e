import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parsePlainLanguage, toTestDefinition } from '../../packages/core/src/intelligence/generation/plain-language.ts';
import { TestDefinition } from '../../packages/core/src/contracts/steps.ts';
import { runTest } from '../../packages/core/src/execution/run-test.ts';
import { httpExchange } from '../../packages/core/src/execution/api/http-exchange.ts';
import { createPlaywrightDriver, type PlaywrightDriver } from '../../packages/functions/src/execution/browser/playwright-driver.ts';
import { FsArtifacts } from '../../packages/functions/src/execution/fs-artifacts.ts';
import { startFixtureApp, type FixtureApp } from '../fixtures/app/server.ts';

/** The grammar's locators in real Chromium on the fixture app: each text must pass, and a wrong expectation must fail. */
let app: FixtureApp;
let driver: PlaywrightDriver;
let dir: string;
beforeAll(async () => {
  app = await startFixtureApp();
  driver = await createPlaywrightDriver({ executablePath: process.env.SVC_CHROMIUM_PATH, locateTimeoutMs: 3_000, assertTimeoutMs: 3_000 });
  dir = await mkdtemp(join(tmpdir(), 'svc-gen-run-'));
});
afterAll(async () => {
  await driver?.close();
  await app?.close();
  await rm(dir, { recursive: true, force: true });
});

async function run(text: string) {
  const parsed = parsePlainLanguage(text);
  expect(parsed.not_understood).toEqual([]);
  const def = TestDefinition.parse({ ...toTestDefinition(parsed), timeout_ms: 30_000 });
  return runTest('t', def, { ui: async () => driver, http: httpExchange, artifacts: new FsArtifacts(dir), baseUrl: app.url, environment: {}, secrets: {}, traceOnFailure: false });
}

describe('plain language in Chromium', () => {
  it('sign in: named page, union locators for fields and the button, URL, heading, not-see', async () => {
    const r = await run(`Given I am on the login page
When I fill "Email" with "demo@example.com"
And I enter "s3cret!" in the password field
And I check "Remember me"
And the "Remember me" checkbox should be checked
And I click "Sign in"
Then I should be redirected to "/dashboard"
And I should see heading "Welcome"
And I should not see "Invalid email or password"`);
    expect(r.error_message ?? '').toBe('');
    expect(r.status).toBe('passed');
  });

  it('"log in as … with password …" and a bad password shows the error', async () => {
    let r = await run('open the login page\nlog in as "demo@example.com" with password "s3cret!"\nexpect the URL to contain "/dashboard"');
    expect(r.error_message ?? '').toBe('');
    r = await run('open the login page\nlog in as "demo@example.com" with password "nope"\nthe user sees an error "Invalid email or password"');
    expect(r.error_message ?? '').toBe('');
  });

  it('forms: select by label, type, value, disabled button, title, text', async () => {
    const r = await run(`1. go to "/form"
2. fill "Name" with "Ada"
3. fill "Email" with "ada@example.com"
4. select "Support" from "Topic"
5. choose the "Pro" plan
6. expect "Name" to have value "Ada"
7. the "Archive" button should be disabled
8. click "Send message"
9. expect text "ada@example.com"
10. expect title "Contact"`);
    expect(r.error_message ?? '').toBe('');
    expect(r.status).toBe('passed');
  });

  it('tables and keys: filter field by placeholder, counts, press with a field, unquoted click', async () => {
    let r = await run('go to "/table"\ntype "lamp" into "Filter products"\nexpect 1 item in "Product catalogue"\nexpect 1 row in the products table\nclear "Filter"\nclick next\nexpect text "Page 2 of 2"');
    expect(r.error_message ?? '').toBe('');
    r = await run('open /keys\npress Enter in "Type here"\nexpect text "Last key: Enter"');
    expect(r.error_message ?? '').toBe('');
  });

  it('API sentences against the fixture API, including text anywhere in the body', async () => {
    const r = await run(`GET /api/items returns 200
the response should contain "Gizmo"
the response should not be empty
response field "items" has at least 5 items
the response header "content-type" should contain "application/json"
POST /api/items with {"name": "Desk"} and bearer token "fixture-token" returns 400
GET /api/items/999 should return 404`);
    expect(r.error_message ?? '').toBe('');
    expect(r.status).toBe('passed');
  });

  it('a wrong expectation fails with the runner\'s message (the generated test can fail)', async () => {
    const r = await run('go to "/login"\nexpect heading "Welcome back"');
    expect(r.status).toBe('failed');
    expect(r.failure_kind).toBe('locator');
    const api = await run('GET /api/items returns 200\nthe response should contain "Spaceship"');
    expect(api.status).toBe('failed');
    expect(api.failure_kind).toBe('assertion');
  });

  it('"unchecked" needs the checkbox, "the X button is hidden" needs the button (both passed on any page; found by QA)', async () => {
    expect((await run('open the login page\nthe "Remember me" checkbox should be unchecked')).status).toBe('passed');
    let r = await run('go to "/table"\nthe "Remember me" checkbox should be unchecked');
    expect(r.status).toBe('failed');
    expect(r.error_message).toMatch(/count: expected .* to match exactly 1 element/);
    expect((await run('open the login page\ncheck "Remember me"\nthe "Remember me" checkbox should be unchecked')).status).toBe('failed');

    // A hidden button that is there passes; one that is not there, or is shown, fails.
    expect((await run('go to "/late-error?ms=5000"\nthe "Retry" button should be hidden')).status).toBe('passed');
    r = await run('go to "/late-error?ms=5000"\nthe "Nonexistent thing" button should be hidden');
    expect(r.status).toBe('failed');
    expect(r.error_message).toMatch(/count: expected .*Nonexistent thing.* to match at least 1 element/);
    expect((await run('go to "/late-error?ms=5000"\nthe nonexistent thing button is hidden')).status).toBe('failed');
    r = await run('open the login page\nthe "Sign in" button should be hidden');
    expect(r.status).toBe('failed');
    expect(r.error_message).toMatch(/hidden: expected .* to be hidden, but it is visible/);
  });
});
