/**
 * An extract step's field selectors heal like a click's, in real Chromium on the fixture
 * app's login page, v1 → v2 (the healing ground truth: `#login-submit` and `#email` are
 * renamed in v2, their test ids kept). A run on v1 records each field's fingerprint
 * (`<step>.<field>`); on v2 the broken fields are healed from them, the step reads v2's
 * values, a later step uses them, and the heals are recorded per field — in the step
 * result, the result's metadata and the JSON, HTML and Markdown reports, before and after.
 * A field read with `all: true` is a list and is not healed.
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TestDefinition } from '../../packages/core/src/contracts/steps.ts';
import { runTest, type TestRunDeps } from '../../packages/core/src/execution/run-test.ts';
import { httpExchange } from '../../packages/core/src/execution/api/http-exchange.ts';
import { StepHealer, defaultHealingPolicy } from '../../packages/core/src/execution/step-healer.ts';
import type { RunSummary, TestExecutionResult } from '../../packages/core/src/execution/types.ts';
import { JsonReport, renderJsonReport } from '../../packages/core/src/reporting/json-report.ts';
import { renderHtmlReport } from '../../packages/core/src/reporting/html-report.ts';
import { renderMarkdownReport } from '../../packages/core/src/reporting/markdown-report.ts';
import { renderJUnitReport } from '../../packages/core/src/reporting/junit-report.ts';
import { createPlaywrightDriver, type PlaywrightDriver } from '../../packages/functions/src/execution/browser/playwright-driver.ts';
import { FsArtifacts } from '../../packages/functions/src/execution/fs-artifacts.ts';
import { FileFingerprintStore } from '../../packages/functions/src/execution/file-fingerprints.ts';
import { startFixtureApp, type FixtureApp } from '../fixtures/app/server.ts';

let v1: FixtureApp;
let v2: FixtureApp;
let driver: PlaywrightDriver;
let dir: string;

beforeAll(async () => {
  [v1, v2] = await Promise.all([startFixtureApp({ version: 'v1' }), startFixtureApp({ version: 'v2' })]);
  driver = await createPlaywrightDriver({ executablePath: process.env.SVC_CHROMIUM_PATH, locateTimeoutMs: 500, assertTimeoutMs: 2_000 });
  dir = await mkdtemp(join(tmpdir(), 'svc-extract-heal-'));
}, 60_000);
afterAll(async () => {
  await driver?.close();
  await Promise.all([v1?.close(), v2?.close()]);
  if (dir) await rm(dir, { recursive: true, force: true });
});

const TEST_ID = 'extract-heal';
const definition = (fields: Record<string, unknown>, after: unknown[] = []) =>
  TestDefinition.parse({ name: 'read the login page', type: 'ui', timeout_ms: 60_000, steps: [{ type: 'goto', url: '/login' }, { type: 'extract', save_as: 'login', fields }, ...after] });

/** One run of the test against an app version; a new healer per run, as each run has its own. */
const run = (app: FixtureApp, test: TestDefinition, state: string, extra: Partial<TestRunDeps> = {}) =>
  runTest(TEST_ID, test, {
    ui: async () => driver, http: httpExchange, artifacts: new FsArtifacts(join(dir, 'artifacts')), baseUrl: app.url, environment: {}, secrets: {}, traceOnFailure: false,
    fingerprints: new FileFingerprintStore(join(dir, state)), healer: new StepHealer(defaultHealingPolicy), ...extra,
  });

const summaryOf = (r: TestExecutionResult): RunSummary => ({ run_id: 'run-1', name: 'extract heal', started_at: r.started_at, finished_at: r.finished_at, duration_ms: r.duration_ms, workers: 1, total: 1, passed: 0, failed: 0, skipped: 0, healed: 1, results: [r] });

describe('healing an extract step\'s fields (Chromium, fixture app v1 → v2)', () => {
  const fields = {
    button: { selector: '#login-submit' },
    email_hint: { selector: '#email', attribute: 'placeholder' },
    heading: { selector: 'h1' },
  };

  it('records each field\'s fingerprint, then heals the broken ones from them, reads v2\'s values and reports the heals', async () => {
    const first = await run(v1, definition(fields), 'state-a');
    expect(first.status, first.error_message).toBe('passed');
    expect(first.steps[1].extracted).toEqual({ button: 'Sign in', email_hint: 'you@example.com', heading: 'Sign in' });
    // One fingerprint per field, under `<step>.<field>`.
    expect(first.fingerprints['1.button']).toMatchObject({ id: 'login-submit', tag: 'button' });
    expect(first.fingerprints['1.email_hint']).toMatchObject({ id: 'email', tag: 'input' });
    expect(first.fingerprints['1.heading']).toMatchObject({ tag: 'h1' });

    // v2 renamed both ids; a later step uses what was read through the healed locators.
    const test = definition(fields, [{ type: 'assert', assertion: { type: 'text', selector: { role: 'button', name: 'Log in' }, equals: '{{login.button}}' } }]);
    const second = await run(v2, test, 'state-a');
    expect(second.status, second.error_message).toBe('healed');
    const step = second.steps[1];
    expect(step.extracted).toEqual({ button: 'Log in', email_hint: 'you@example.com', heading: 'Log in' });
    expect(step.healed).toBeUndefined();
    expect(step.healed_fields).toEqual([
      { field: 'button', original: '#login-submit', healed: expect.stringContaining('login-submit'), confidence: expect.any(Number) },
      { field: 'email_hint', original: '#email', healed: expect.stringContaining('login-email'), confidence: expect.any(Number) },
    ]);
    for (const h of step.healed_fields!) expect(h.confidence).toBeGreaterThanOrEqual(defaultHealingPolicy.threshold);
    expect(second.steps[2].status).toBe('passed');
    expect(second.metadata.heals).toEqual([
      expect.objectContaining({ index: 1, field: 'button', original: '#login-submit' }),
      expect.objectContaining({ index: 1, field: 'email_hint', original: '#email' }),
    ]);
    // The healed element's fingerprint is recorded for the next run, under the same key.
    expect(second.fingerprints['1.button']).toMatchObject({ id: 'signin-button' });

    const healedButton = step.healed_fields![0].healed;
    // The report stays valid against its (strict) schema with the per-field heals.
    const json = JsonReport.parse(JSON.parse(renderJsonReport(summaryOf(second)))).tests[0];
    expect(json.steps[1].healed).toBeNull();
    expect(json.steps[1].healed_fields).toEqual(step.healed_fields);
    expect(json.healed_selectors).toEqual([
      expect.objectContaining({ step: 1, field: 'button', original: '#login-submit', healed: healedButton }),
      expect.objectContaining({ step: 1, field: 'email_hint', original: '#email' }),
    ]);
    const html = renderHtmlReport(summaryOf(second));
    expect(html).toContain('<h3>Healed selectors</h3>');
    expect(html).toMatch(/<tr><td>2 <span class="field">button<\/span><\/td><td><code class="before">#login-submit<\/code><\/td><td><code class="after">[^<]*login-submit[^<]*<\/code>/);
    const md = renderMarkdownReport(summaryOf(second));
    expect(md).toMatch(/\| read the login page \| 2 \(button\) \| `#login-submit` \| `[^`]*login-submit[^`]*` \|/);
    expect(renderJUnitReport(summaryOf(second))).toContain('name="svc.healed.step.2.button"');
  }, 120_000);

  it('does not heal a field read with all: true, and says why', async () => {
    const withList = { ...fields, inputs: { selector: '#login-form input', all: true } };
    const first = await run(v1, definition(withList), 'state-b');
    expect(first.status, first.error_message).toBe('passed');
    expect((first.steps[1].extracted as { inputs: string[] }).inputs).toHaveLength(3);
    expect(Object.keys(first.fingerprints).filter((k) => k.startsWith('1.'))).toEqual(['1.button', '1.email_hint', '1.heading']);

    const second = await run(v2, definition(withList), 'state-b');
    expect(second.status).toBe('failed');
    expect(second.failure_kind).toBe('locator');
    expect(second.error_message).toMatch(/extract field "inputs": "#login-form input" matched 0 elements; not healed: a field read with all: true \(a list\) is not healed/);
  }, 120_000);
});
