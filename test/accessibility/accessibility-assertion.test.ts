import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPlaywrightDriver, type PlaywrightDriver } from '../../packages/functions/src/execution/browser/playwright-driver.ts';
import { FsArtifacts } from '../../packages/functions/src/execution/fs-artifacts.ts';
import { FileFingerprintStore } from '../../packages/functions/src/execution/file-fingerprints.ts';
import { runTest, type TestRunDeps } from '../../packages/core/src/execution/run-test.ts';
import { httpExchange } from '../../packages/core/src/execution/api/http-exchange.ts';
import { StepHealer, defaultHealingPolicy } from '../../packages/core/src/execution/step-healer.ts';
import { Assertion, TestDefinition } from '../../packages/core/src/contracts/steps.ts';
import { parsePlainLanguage, toTestDefinition } from '../../packages/core/src/intelligence/generation/plain-language.ts';
import { startFixtureApp, type FixtureApp } from '../fixtures/app/server.ts';

/**
 * Accessibility assertions end to end: axe-core in real Chromium on the fixture app's
 * /a11y page (an image without alt, an unlabeled input, a button with no name, faint
 * text) and /a11y/clean (the same, fixed). The thresholds, scoping and exclusions change
 * the outcome as docs/test-format.md says; the page's own scripts are left alone.
 */

let app: FixtureApp;
let driver: PlaywrightDriver;
let dir: string;

beforeAll(async () => {
  app = await startFixtureApp();
  driver = await createPlaywrightDriver({ locateTimeoutMs: 1_000 });
  dir = await mkdtemp(join(tmpdir(), 'svc-a11y-'));
});
afterAll(async () => {
  await driver?.close();
  await app?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

let runs = 0;
function run(test: Record<string, unknown>, extra: Partial<TestRunDeps> = {}) {
  return runTest('a11y-test', TestDefinition.parse({ name: 'a11y', type: 'ui', timeout_ms: 60_000, ...test }), {
    ui: async () => driver,
    http: httpExchange,
    artifacts: new FsArtifacts(join(dir, `run-${++runs}`)),
    baseUrl: app.url,
    environment: {},
    secrets: {},
    traceOnFailure: false,
    ...extra,
  });
}

const broken = [{ type: 'goto', url: '/a11y' }];
const clean = [{ type: 'goto', url: '/a11y/clean' }];
const ruleIds = (o: { violations: Array<{ id: string }> }) => o.violations.map((v) => v.id).sort();

describe('accessibility assertions', () => {
  it('fails on the broken page with the rule ids, the step named and each rule listed', async () => {
    const r = await run({ steps: [...broken, { type: 'assert', assertion: { type: 'accessibility' } }] });
    expect(r.status).toBe('failed');
    expect(r.failure_kind).toBe('assertion');
    expect(r.error_message).toMatch(/^step 2 \(expect the page to be accessible \(serious or worse\)\): accessibility: 4 rules violated at or above serious \(0 allowed\): /);
    expect(r.error_message).toContain('image-alt (critical, 1 element: #no-alt) Images must have alternative text');
    expect(r.error_message).toContain('label (critical, 1 element: #unlabeled)');
    expect(r.error_message).toContain('button-name (critical, 1 element: #icon-button)');
    expect(r.error_message).toContain('color-contrast (serious, 1 element: #faint)');
    const [outcome] = r.accessibility!;
    expect(ruleIds(outcome)).toEqual(['button-name', 'color-contrast', 'image-alt', 'label']);
    expect(outcome).toMatchObject({ status: 'failed', min_impact: 'serious', counted: 4, max_violations: 0, tags: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'], url: `${app.url}/a11y`, engine: expect.stringMatching(/^4\./) });
    expect(outcome.passes).toBeGreaterThan(5);
    // Most severe first; each violation keeps what a report shows.
    expect(outcome.violations.at(-1)!.id).toBe('color-contrast');
    const alt = outcome.violations.find((v) => v.id === 'image-alt')!;
    expect(alt).toMatchObject({ impact: 'critical', node_count: 1, help_url: expect.stringContaining('dequeuniversity.com/rules/axe/'), nodes: [{ target: ['#no-alt'], html: expect.stringContaining('<img id="no-alt"') }] });
  });

  it('passes on the clean page, and leaves the page\'s own axe global alone', async () => {
    const r = await run({ steps: clean, assertions: [{ type: 'accessibility', name: 'clean page' }] });
    expect(r.status, r.error_message).toBe('passed');
    expect(r.accessibility).toEqual([expect.objectContaining({ name: 'clean page', status: 'passed', counted: 0, violations: [] })]);

    const s = await driver.openSession({ baseUrl: app.url, trace: false });
    try {
      await s.page.goto(`${app.url}/a11y`);
      await s.accessibility({ tags: ['wcag2a'], disableRules: [] }, { signal: new AbortController().signal, deadline: Date.now() + 30_000, log: () => {} });
      expect(await s.page.evaluate(() => (window as unknown as { axe: unknown }).axe)).toBe("the page's own axe");
    } finally {
      await s.close();
    }
  });

  it('min_impact critical leaves the serious contrast problem out; max_violations allows some', async () => {
    const critical = await run({ steps: broken, assertions: [{ type: 'accessibility', min_impact: 'critical' }] });
    expect(critical.status).toBe('failed');
    expect(ruleIds(critical.accessibility![0])).toEqual(['button-name', 'image-alt', 'label']);
    expect(critical.accessibility![0].below_threshold).toBe(1);

    const allowed = await run({ steps: broken, assertions: [{ type: 'accessibility', max_violations: 4 }] });
    expect(allowed.status, allowed.error_message).toBe('passed');
    expect(allowed.accessibility![0]).toMatchObject({ status: 'passed', counted: 4 });
    const notEnough = await run({ steps: broken, assertions: [{ type: 'accessibility', max_violations: 3 }] });
    expect(notEnough.error_message).toMatch(/4 rules violated at or above serious \(3 allowed\)/);
  });

  it('disable_rules and exclude take problems out; a selector scopes the check to one element', async () => {
    const disabled = await run({ steps: broken, assertions: [{ type: 'accessibility', disable_rules: ['color-contrast', 'image-alt'] }] });
    expect(ruleIds(disabled.accessibility![0])).toEqual(['button-name', 'label']);

    const excluded = await run({ steps: broken, assertions: [{ type: 'accessibility', exclude: ['#newsletter-form', { css: '#faint' }, '#nothing-like-this'] }] });
    expect(ruleIds(excluded.accessibility![0])).toEqual(['image-alt']);

    const form = await run({ steps: broken, assertions: [{ type: 'accessibility', selector: { role: 'form', name: 'Newsletter' } }] });
    expect(form.status).toBe('failed');
    expect(ruleIds(form.accessibility![0])).toEqual(['button-name', 'label']);
    expect(form.accessibility![0].selector).toBe('role=form[name="Newsletter"]');
    expect(form.error_message).toMatch(/accessibility in role=form\[name="Newsletter"\]: 2 rules violated/);

    const fine = await run({ steps: broken, assertions: [{ type: 'accessibility', selector: '#fine' }] });
    expect(fine.status, fine.error_message).toBe('passed');

    const tags = await run({ steps: broken, assertions: [{ type: 'accessibility', tags: ['wcag2aa'] }] });
    expect(ruleIds(tags.accessibility![0])).toEqual(['color-contrast']);
  });

  it('a scope element that is not there is a locator failure naming the step', async () => {
    const r = await run({ steps: [...broken, { type: 'assert', assertion: { type: 'accessibility', selector: '#no-such-form' } }] });
    expect([r.status, r.failure_kind]).toEqual(['failed', 'locator']);
    expect(r.error_message).toBe('step 2 (expect #no-such-form to be accessible (serious or worse)): accessibility: "#no-such-form" matched 0 elements');
    expect(r.accessibility).toBeUndefined();
  });

  it("heals a scope element's broken locator from its recorded fingerprint, then checks the healed element", async () => {
    const healing = { fingerprints: new FileFingerprintStore(join(dir, 'state-heal')) };
    const first = await run({ steps: clean, assertions: [{ type: 'accessibility', selector: '#newsletter-form' }] }, { ...healing, healer: new StepHealer(defaultHealingPolicy) });
    expect(first.status, first.error_message).toBe('passed');
    expect(first.fingerprints[1]).toMatchObject({ id: 'newsletter-form', tag: 'form' });
    const renamed = await run({ steps: clean, assertions: [{ type: 'accessibility', selector: '#signup-form' }] }, { ...healing, healer: new StepHealer(defaultHealingPolicy) });
    expect(renamed.status, renamed.error_message).toBe('healed');
    expect(renamed.accessibility![0]).toMatchObject({ status: 'passed' });
  });

  it('a tag or rule axe does not have is a configuration failure naming it (axe itself would run nothing and pass)', async () => {
    const r = await run({ steps: clean, assertions: [{ type: 'accessibility', tags: ['wcag99zz'] }] });
    expect([r.status, r.failure_kind]).toEqual(['failed', 'configuration']);
    expect(r.error_message).toMatch(/axe-core has no such rules: unknown tag wcag99zz$/);
    const rule = await run({ steps: clean, assertions: [{ type: 'accessibility', disable_rules: ['colour-contrast'] }] });
    expect(rule.error_message).toMatch(/axe-core has no such rules: unknown rule colour-contrast$/);
  });

  it('plain language: "the newsletter form is accessible" finds the form and checks only it', async () => {
    const parsed = parsePlainLanguage('go to "/a11y"\nthe newsletter form is accessible');
    const r = await run(toTestDefinition(parsed, { name: 'from a sentence' }) as unknown as Record<string, unknown>);
    expect(r.status).toBe('failed');
    expect(ruleIds(r.accessibility![0])).toEqual(['button-name', 'label']);
  });

  it('bad input is refused by the schema, naming the field', () => {
    const issues = (a: unknown) => Assertion.safeParse(a).error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`) ?? [];
    expect(issues({ type: 'accessibility', min_impact: 'severe' })[0]).toMatch(/^min_impact: /);
    expect(issues({ type: 'accessibility', max_violations: -1 })[0]).toMatch(/^max_violations: /);
    expect(issues({ type: 'accessibility', tags: [] })[0]).toMatch(/^tags: /);
    expect(issues({ type: 'accessibility', tags: ['wcag2a', 'not a tag'] })[0]).toMatch(/^tags\.1: an axe tag/);
    expect(issues({ type: 'accessibility', disable_rules: ['Color Contrast'] })[0]).toMatch(/^disable_rules\.0: an axe rule id/);
    expect(issues({ type: 'accessibility', impact: 'minor' })[0]).toMatch(/impact/);
  });
});
