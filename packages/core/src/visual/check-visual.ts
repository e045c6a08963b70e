import { defaultBaselineName, type VisualAssertion } from '../contracts/steps.ts';
import type { Fingerprint } from '../contracts/fingerprint.ts';
import { StepFailure, type ArtifactSink, type StepContext, type UiSession } from '../execution/types.ts';
import type { BaselineMode, BaselineStore, VisualOutcome } from './baseline-store.ts';
import { sleep } from '../sleep.ts';
import { fileSafe } from '../file-safe.ts';
import { compareScreenshots, describeComparison, ImageDecodeError, type VisualComparison } from './compare.ts';

export interface VisualCheckDeps {
  session: UiSession;
  baselines?: BaselineStore;
  mode: BaselineMode;
  artifacts: ArtifactSink;
  testId: string;
  /** Folder of this test's artifacts in the run. */
  folder: string;
  now: () => number;
  /**
   * Only confirm: a healed locator's re-run must show the element the baseline shows, so it
   * passes on `matched` alone and writes nothing (no baseline, proposal or artifact);
   * otherwise any element would "pass" by becoming a new baseline.
   */
  confirmOnly?: boolean;
}

/** How long a differing screenshot is retaken while the page is still changing (fonts, late images). */
const SETTLE_MS = 5_000;
const RETAKE_INTERVAL_MS = 150;


/**
 * Checks one visual assertion: captures, compares with the test's baseline of that name,
 * and records a baseline where the mode allows. Returns the outcome (and the captured
 * element's fingerprint); throws StepFailure('assertion') with the outcome in its details
 * when the page does not look as accepted.
 *
 * Like Playwright's toHaveScreenshot, a screenshot that differs is retaken until two in a
 * row are identical (or SETTLE_MS pass), so a page still loading is not called a regression.
 */
export async function checkVisual(a: VisualAssertion, index: number, ctx: StepContext, d: VisualCheckDeps): Promise<{ outcome: VisualOutcome; fingerprint?: Fingerprint }> {
  if (!d.baselines) throw new StepFailure('configuration', 'visual assertions need a baseline store, and none is configured for this run');
  const name = a.baseline ?? defaultBaselineName(index);
  let fingerprint: Fingerprint | undefined;
  const capture = async () => {
    const shot = await d.session.capture({ selector: a.selector, fullPage: a.full_page, mask: a.mask }, ctx);
    fingerprint = shot.fingerprint ?? fingerprint;
    return shot.png;
  };
  const done = (outcome: VisualOutcome) => ({ outcome, ...(fingerprint && { fingerprint }) });
  const key = (suffix: string) => `${d.folder}/visual-${fileSafe(name)}-${suffix}.png`;
  const metadata = { name, step: index, ...(a.selector !== undefined && { selector: a.selector }), ...(a.full_page && { full_page: true }) };

  const baseline = await d.baselines.get(d.testId, name);
  if (d.confirmOnly && !baseline) throw new StepFailure('assertion', `visual "${name}": there is no baseline to confirm the element against`);
  if (!baseline) {
    const shot = await settled(capture, ctx, d.now);
    const actual = await d.artifacts.put(key('actual'), shot, 'image/png');
    if (d.mode === 'none') {
      const message = `visual "${name}": there is no baseline yet, and this run does not record baselines (baseline mode none)`;
      const proposed = await d.baselines.propose?.(d.testId, name, shot);
      throw new StepFailure('assertion', message, { visual: { name, status: 'missing', actual, ...(proposed && { proposed_hash: proposed.hash }), message } satisfies VisualOutcome });
    }
    const { hash } = await d.baselines.put(d.testId, name, shot, metadata);
    return done({ name, status: 'created', actual, baseline_hash: hash, message: `no baseline yet: this screenshot is now the baseline` });
  }

  let shot = await capture();
  let result = compare(baseline.png, shot, a);
  const stopAt = Math.min(ctx.deadline, d.now() + SETTLE_MS);
  while (!result.match && d.now() < stopAt) {
    await sleep(RETAKE_INTERVAL_MS, ctx.signal);
    if (ctx.signal.aborted) throw ctx.signal.reason;
    const again = await capture();
    const stable = sameBytes(again, shot);
    shot = again;
    if (stable) break; // the page stopped changing and still differs
    result = compare(baseline.png, shot, a);
  }
  if (result.match) return done({ name, status: 'matched', diff_pixels: result.diff_pixels, diff_ratio: result.diff_ratio, baseline_hash: baseline.hash });

  const described = describeComparison(result);
  if (d.confirmOnly) throw new StepFailure('assertion', `visual "${name}": the element does not look like its baseline: ${described}`);
  const actual = await d.artifacts.put(key('actual'), shot, 'image/png');
  if (d.mode === 'all') {
    const { hash } = await d.baselines.put(d.testId, name, shot, metadata);
    return done({ name, status: 'updated', diff_pixels: result.diff_pixels, diff_ratio: result.diff_ratio, actual, baseline_hash: hash, message: `differed from the baseline (${described}): the baseline was replaced` });
  }
  const proposed = await d.baselines.propose?.(d.testId, name, shot);
  const outcome: VisualOutcome = {
    name,
    status: 'differs',
    diff_pixels: result.diff_pixels,
    diff_ratio: result.diff_ratio,
    actual,
    baseline: await d.artifacts.put(key('baseline'), baseline.png, 'image/png'),
    ...(result.diff_png ? { diff: await d.artifacts.put(key('diff'), result.diff_png, 'image/png') } : {}),
    baseline_hash: baseline.hash,
    ...(proposed && { proposed_hash: proposed.hash }),
    message: `visual "${name}": the screenshot differs from its baseline: ${described}${tolerance(a)}`,
  };
  throw new StepFailure('assertion', outcome.message!, { visual: outcome });
}

function compare(baseline: Uint8Array, actual: Uint8Array, a: VisualAssertion): VisualComparison {
  try {
    return compareScreenshots(baseline, actual, a);
  } catch (err) {
    if (err instanceof ImageDecodeError) throw new StepFailure('internal', `visual: ${err.message}`);
    throw err;
  }
}

/** A screenshot taken once two in a row are identical (a new baseline must not catch the page mid-change). */
async function settled(capture: () => Promise<Uint8Array>, ctx: StepContext, now: () => number): Promise<Uint8Array> {
  let shot = await capture();
  const stopAt = Math.min(ctx.deadline, now() + SETTLE_MS);
  while (now() < stopAt) {
    await sleep(RETAKE_INTERVAL_MS, ctx.signal);
    if (ctx.signal.aborted) throw ctx.signal.reason;
    const again = await capture();
    if (sameBytes(again, shot)) return again;
    shot = again;
  }
  return shot;
}

function tolerance(a: VisualAssertion): string {
  const parts = [a.max_diff_pixels !== undefined && `max_diff_pixels ${a.max_diff_pixels}`, a.max_diff_ratio !== undefined && `max_diff_ratio ${a.max_diff_ratio}`].filter(Boolean);
  return parts.length ? ` (allowed: ${parts.join(', ')})` : '';
}

const sameBytes = (x: Uint8Array, y: Uint8Array) => x.length === y.length && Buffer.compare(x, y) === 0;
