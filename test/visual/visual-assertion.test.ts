import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PNG } from 'pngjs';
import { createPlaywrightDriver, type PlaywrightDriver } from '../../packages/functions/src/execution/browser/playwright-driver.ts';
import { FileBaselineStore } from '../../packages/functions/src/execution/file-baselines.ts';
import { FsArtifacts } from '../../packages/functions/src/execution/fs-artifacts.ts';
import { runTest } from '../../packages/core/src/execution/run-test.ts';
import { httpExchange } from '../../packages/core/src/execution/api/http-exchange.ts';
import { TestDefinition } from '../../packages/core/src/contracts/steps.ts';
import type { BaselineMode } from '../../packages/core/src/visual/baseline-store.ts';
import { StepHealer, defaultHealingPolicy } from '../../packages/core/src/execution/step-healer.ts';
import { FileFingerprintStore } from '../../packages/functions/src/execution/file-fingerprints.ts';
import type { TestRunDeps } from '../../packages/core/src/execution/run-test.ts';
import { startFixtureApp, type FixtureApp } from '../fixtures/app/server.ts';

/**
 * Visual assertions end to end: real Chromium on the fixture app's /visual page, baselines
 * as files, artifacts in a folder. The first run records, later runs compare; a change
 * fails with the baseline, the screenshot and a diff image; masks, element captures and
 * the three baseline modes behave as documented (docs/test-format.md "Visual").
 */

let app: FixtureApp;
let driver: PlaywrightDriver;
let dir: string;

beforeAll(async () => {
  app = await startFixtureApp();
  driver = await createPlaywrightDriver({ locateTimeoutMs: 1_000 });
  dir = await mkdtemp(join(tmpdir(), 'svc-visual-'));
});
afterAll(async () => {
  await driver?.close();
  await app?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

let runs = 0;
/** `stored` edits the parsed test, as a test stored before a check was added may differ from what the schema accepts now. */
async function run(test: Record<string, unknown>, o: { baselines: FileBaselineStore; mode?: BaselineMode; extra?: Partial<TestRunDeps>; stored?: (t: TestDefinition) => void }) {
  const artifacts = join(dir, `run-${++runs}`);
  const definition = TestDefinition.parse({ name: 'visual', type: 'ui', timeout_ms: 60_000, ...test });
  o.stored?.(definition);
  const result = await runTest('visual-test', definition, {
    ui: async () => driver,
    http: httpExchange,
    artifacts: new FsArtifacts(artifacts),
    baseUrl: app.url,
    environment: {},
    secrets: {},
    traceOnFailure: false,
    baselines: o.baselines,
    ...(o.mode ? { baselineMode: o.mode } : {}),
    ...o.extra,
  });
  const file = async (key: string | undefined) => PNG.sync.read(await readFile(join(artifacts, key!)));
  return { result, file };
}

const page = (query = '') => [{ type: 'goto', url: `/visual${query}` }];
const masked = { type: 'visual', baseline: 'page', mask: ['#clock'] };

describe('visual assertions', () => {
  it('records a baseline on the first run, matches it on the next, and fails with images when the page changes', async () => {
    const baselines = new FileBaselineStore(join(dir, 'baselines-a'));
    const first = await run({ steps: [...page(), { type: 'assert', assertion: masked }] }, { baselines });
    expect(first.result.status).toBe('passed');
    expect(first.result.visual).toEqual([expect.objectContaining({ name: 'page', status: 'created', baseline_hash: expect.stringMatching(/^[0-9a-f]{64}$/) })]);
    const stored = PNG.sync.read(await readFile(baselines.path('visual-test', 'page')));
    expect([stored.width, stored.height]).toEqual([1280, 720]);

    const second = await run({ steps: page(), assertions: [masked] }, { baselines });
    expect(second.result.status).toBe('passed');
    expect(second.result.visual).toEqual([expect.objectContaining({ name: 'page', status: 'matched', diff_pixels: 0 })]);

    const changed = await run({ steps: page('?box=red'), assertions: [masked] }, { baselines });
    expect(changed.result.status).toBe('failed');
    expect(changed.result.failure_kind).toBe('assertion');
    expect(changed.result.error_message).toMatch(/^assertion 1 \(expect the page to look like baseline "page"\): visual "page": the screenshot differs from its baseline: 1,600 of 921,600 pixels differ \(0\.17 %\)$/);
    const [outcome] = changed.result.visual!;
    expect(outcome).toMatchObject({ status: 'differs', diff_pixels: 1600 });
    const [baseline, actual, diff] = await Promise.all([changed.file(outcome.baseline), changed.file(outcome.actual), changed.file(outcome.diff)]);
    for (const img of [baseline, actual, diff]) expect([img.width, img.height]).toEqual([1280, 720]);
    // The box (40×40, red now) is where the diff is red; the rest of the diff is faded.
    const box = await boxOf('#box');
    const px = (img: PNG, fx: number, fy: number) => {
      const [x, y] = [Math.round(fx), Math.round(fy)];
      return [...img.data.subarray((y * img.width + x) * 4, (y * img.width + x) * 4 + 3)];
    };
    expect(px(diff, box.x + 20, box.y + 20)).toEqual([255, 0, 0]);
    expect(px(actual, box.x + 20, box.y + 20)).toEqual([221, 0, 0]);
    expect(px(baseline, box.x + 20, box.y + 20)).toEqual([0, 102, 204]);
    // The baseline itself is untouched by a failing run.
    expect((await baselines.get('visual-test', 'page'))!.hash).toBe(first.result.visual![0].baseline_hash);
  });

  it('without a mask the clock makes every load differ; with it the page matches', async () => {
    const baselines = new FileBaselineStore(join(dir, 'baselines-b'));
    const unmasked = { type: 'visual', baseline: 'clock' };
    await run({ steps: page(), assertions: [unmasked] }, { baselines });
    const again = await run({ steps: page(), assertions: [unmasked] }, { baselines });
    expect(again.result.status).toBe('failed');
    expect(again.result.visual![0].status).toBe('differs');
    expect(again.result.visual![0].diff_pixels).toBeGreaterThan(0);
  });

  it('captures one element when given a selector, and names the step when the element is missing', async () => {
    const baselines = new FileBaselineStore(join(dir, 'baselines-c'));
    const card = { type: 'visual', baseline: 'card', selector: '#card' };
    const first = await run({ steps: page(), assertions: [card] }, { baselines });
    expect(first.result.status).toBe('passed');
    const shot = PNG.sync.read(await readFile(baselines.path('visual-test', 'card')));
    const box = await boxOf('#card');
    expect([shot.width, shot.height]).toEqual([Math.ceil(box.width), Math.ceil(box.height)]);
    // The clock is outside the card: the element's baseline holds across loads without a mask.
    expect((await run({ steps: page(), assertions: [card] }, { baselines })).result.visual![0].status).toBe('matched');

    const missing = await run({ steps: [...page(), { type: 'assert', assertion: { type: 'visual', selector: '#no-such-card' } }] }, { baselines });
    expect(missing.result.status).toBe('failed');
    expect(missing.result.failure_kind).toBe('locator');
    expect(missing.result.error_message).toBe('step 2 (expect #no-such-card to look like baseline (unnamed)): visual: "#no-such-card" matched 0 elements');

    // A mask that is no selector is refused when a test is saved; one stored before that check
    // fails its run as the mask's fault, not as a page that could not be healed.
    const refused = TestDefinition.safeParse({ name: 'visual', type: 'ui', steps: page(), assertions: [{ type: 'visual', mask: ['##['] }] });
    expect(refused.success ? [] : refused.error.issues.map((i) => i.path.join('.'))).toEqual(['assertions.0.mask.0']);
    const storedMask = (t: TestDefinition) => Object.assign(t.assertions[0]!, { mask: ['##['] });
    const badMask = await run({ steps: page(), assertions: [{ type: 'visual', baseline: 'masked-badly', mask: ['#card'] }] }, { baselines, stored: storedMask });
    expect(badMask.result.failure_kind).toBe('configuration');
    expect(badMask.result.error_message).toMatch(/^assertion 1 \(.*\): visual: a mask selector is not valid \(mask: "##\["\): /);
    expect(badMask.result.error_message).not.toContain('not healed');
  });

  it("heals an element's broken locator from the fingerprint its capture recorded, then compares", async () => {
    const baselines = new FileBaselineStore(join(dir, 'baselines-heal'));
    const healing = { fingerprints: new FileFingerprintStore(join(dir, 'state-heal')), healer: new StepHealer(defaultHealingPolicy) };
    const first = await run({ steps: page(), assertions: [{ type: 'visual', baseline: 'card', selector: '#card' }] }, { baselines, extra: healing });
    expect(first.result.fingerprints[1]).toMatchObject({ id: 'card', tag: 'div' });

    // The id the test knew is gone (say, renamed in the app): the locator heals, the card still matches.
    const renamed = await run({ steps: page(), assertions: [{ type: 'visual', baseline: 'card', selector: '#order-card' }] }, { baselines, extra: { ...healing, healer: new StepHealer(defaultHealingPolicy) } });
    expect(renamed.result.status, renamed.result.error_message).toBe('healed');
    expect(renamed.result.visual).toEqual([expect.objectContaining({ name: 'card', status: 'matched' })]);
    expect(renamed.result.metadata.heals).toEqual([expect.objectContaining({ index: 1, original: '#order-card', healed: expect.stringContaining('card') })]);

    // Without a baseline there is nothing to confirm a healed element against: no heal, and nothing is recorded.
    await rm(baselines.path('visual-test', 'card'));
    const unconfirmed = await run({ steps: page(), assertions: [{ type: 'visual', baseline: 'card', selector: '#order-card' }] }, { baselines, extra: { ...healing, healer: new StepHealer(defaultHealingPolicy) } });
    expect([unconfirmed.result.status, unconfirmed.result.failure_kind]).toEqual(['failed', 'locator']);
    expect(unconfirmed.result.error_message).toMatch(/not healed/);
    expect(await baselines.get('visual-test', 'card')).toBeUndefined();
  });

  it('waits for a page that is still changing before calling it a regression', async () => {
    const baselines = new FileBaselineStore(join(dir, 'baselines-d'));
    // The baseline is of the finished page; the next run compares while the late note is not there yet.
    await run({ steps: [...page('?late=300'), { type: 'wait-for', ms: 600 }], assertions: [masked] }, { baselines });
    const early = await run({ steps: page('?late=300'), assertions: [masked] }, { baselines });
    expect(early.result.status).toBe('passed');
    expect(early.result.visual![0].status).toBe('matched');
  });

  it('mode none fails a missing baseline and writes nothing; mode all replaces one that differs', async () => {
    const baselines = new FileBaselineStore(join(dir, 'baselines-e'));
    const none = await run({ steps: page(), assertions: [masked] }, { baselines, mode: 'none' });
    expect(none.result.status).toBe('failed');
    expect(none.result.error_message).toMatch(/there is no baseline yet, and this run does not record baselines \(baseline mode none\)/);
    expect(none.result.visual).toEqual([expect.objectContaining({ status: 'missing', actual: expect.any(String) })]);
    await expect(stat(baselines.path('visual-test', 'page'))).rejects.toThrow(/ENOENT/);

    await run({ steps: page(), assertions: [masked] }, { baselines });
    const updated = await run({ steps: page('?box=red'), assertions: [masked] }, { baselines, mode: 'all' });
    expect(updated.result.status).toBe('passed');
    expect(updated.result.visual![0]).toMatchObject({ status: 'updated', diff_pixels: 1600 });
    const red = await run({ steps: page('?box=red'), assertions: [masked] }, { baselines, mode: 'none' });
    expect(red.result.visual![0].status).toBe('matched');
  });

  it('unnamed assertions get a baseline per position, and a test without a baseline store fails clearly', async () => {
    const baselines = new FileBaselineStore(join(dir, 'baselines-f'));
    const r = await run({ steps: [...page(), { type: 'assert', assertion: { type: 'visual', selector: '#box' } }], assertions: [{ type: 'visual', selector: 'h1' }] }, { baselines });
    expect(r.result.visual!.map((v) => v.name)).toEqual(['visual-2', 'visual-3']);

    const noStore = await runTest('no-store', TestDefinition.parse({ name: 'x', type: 'ui', steps: [...page(), { type: 'assert', assertion: { type: 'visual' } }] }), {
      ui: async () => driver, http: httpExchange, artifacts: new FsArtifacts(join(dir, 'no-store')), baseUrl: app.url, environment: {}, secrets: {}, traceOnFailure: false,
    });
    expect([noStore.status, noStore.failure_kind]).toEqual(['failed', 'configuration']);
    expect(noStore.error_message).toMatch(/visual assertions need a baseline store/);
  });
});

describe('full-page captures of a tall page', () => {
  it('are the whole page: a page taller than Chromium paints in one piece is captured in slices and stitched, not repeated', async () => {
    const session = await driver.openSession({ baseUrl: app.url, trace: false });
    try {
      // 30,000 px of gradient with a red square at y = 20,000: one capture repeated its first 8192 px below and never showed the square.
      await session.page.setContent('<body style="margin:0"><div style="height:30000px;background:linear-gradient(#00f,#0f0)"></div><div style="position:absolute;top:20000px;left:10px;width:50px;height:50px;background:red"></div></body>');
      const deadline = Date.now() + 60_000;
      const shot = PNG.sync.read(Buffer.from((await session.capture({ fullPage: true }, { signal: new AbortController().signal, deadline, log: () => {} })).png));
      const px = (x: number, y: number) => [...shot.data.subarray((shot.width * y + x) * 4, (shot.width * y + x) * 4 + 3)];
      expect(shot.height).toBe(30_000);
      expect(px(30, 20_020)).toEqual([255, 0, 0]);
      // The gradient goes on below 8192 px instead of starting again.
      expect(px(30, 8_292)).not.toEqual(px(30, 100));
      expect(px(30, 29_990)[1]).toBeGreaterThan(200);
      // A screenshot step's full page is stitched the same way.
      const step = PNG.sync.read(Buffer.from(await session.screenshot({ fullPage: true, timeoutMs: 60_000 })));
      expect([step.height, [...step.data.subarray((step.width * 20_020 + 30) * 4, (step.width * 20_020 + 30) * 4 + 3)]]).toEqual([30_000, [255, 0, 0]]);
    } finally {
      await session.close();
    }
  });
});

describe('the visual assertion schema', () => {
  it('names the field for a bad baseline name and for selector with full_page', () => {
    const bad = (assertion: Record<string, unknown>) => TestDefinition.safeParse({ name: 'x', type: 'ui', steps: [{ type: 'goto', url: '/' }], assertions: [{ type: 'visual', ...assertion }] });
    expect(bad({ baseline: '../etc/passwd' }).error?.issues[0]).toMatchObject({ path: ['assertions', 0, 'baseline'] });
    expect(bad({ selector: '#card', full_page: true }).error?.issues[0]).toMatchObject({ path: ['assertions', 0, 'full_page'] });
    expect(bad({ threshold: 2 }).error?.issues[0]).toMatchObject({ path: ['assertions', 0, 'threshold'] });
    expect(bad({ baseline: 'checkout page', max_diff_ratio: 0.01, mask: ['#clock', { test_id: 'avatar' }] }).success).toBe(true);
    // One baseline per assertion: a repeated name (as files see it, or an explicit visual-<n>) is refused where it repeats.
    const twice = TestDefinition.safeParse({ name: 'x', type: 'ui', steps: [{ type: 'goto', url: '/' }, { type: 'assert', assertion: { type: 'visual', baseline: 'checkout page' } }], assertions: [{ type: 'visual', baseline: 'checkout_page' }, { type: 'visual', baseline: 'visual-5' }, { type: 'visual' }] });
    expect(twice.error?.issues.map((i) => [i.path, i.message])).toEqual([
      [['assertions', 0, 'baseline'], 'baseline "checkout_page" is already used by another visual assertion of this test (as "checkout page": names differing only in characters other than letters, digits, . - _ are the same file)'],
      [['assertions', 2, 'baseline'], 'baseline "visual-5" is already used by another visual assertion of this test'],
    ]);
  });
});

/** An element's box on /visual, read in a session of its own. */
async function boxOf(selector: string) {
  const s = await driver.openSession({ baseUrl: app.url, trace: false });
  try {
    await s.page.goto('/visual');
    return (await s.page.locator(selector).boundingBox())!;
  } finally {
    await s.close();
  }
}
