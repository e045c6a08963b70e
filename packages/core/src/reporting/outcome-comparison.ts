import type { RunCompare } from '../contracts/run-compare.ts';
import type { TestRun } from '../contracts/test-run.ts';
import { isTerminalRunStatus } from '../contracts/test-run.ts';
import type { Logger } from '../ports/logger.ts';
import type { Store } from '../store/index.ts';
import { runComparisonOf } from './run-compare-source.ts';

/**
 * How long the outcomes wait for the comparison: past this they go out without it. Both
 * runs' results are a few reads; a store this slow should not hold a commit status back.
 */
export const COMPARISON_WAIT_MS = 5_000;

/** A comparison that has a base (a project's first run has none: nothing to say). */
export type BasedRunCompare = RunCompare & { base_run_id: string };

/** The comparison of a finished run with its default base, or undefined when there is none to say. */
export type OutcomeComparison = (run: TestRun) => Promise<BasedRunCompare | undefined>;

/**
 * The comparison every outcome of one finished run says (commit status, notifications,
 * automation callback, Slack command reply), computed at most once and only when one of
 * them asks (most runs have no channel, commit or callback to tell). The base is the
 * default of GET /api/runs/{id}/compare: for a pull request's run its target branch's
 * latest push run, else the project's previous completed or failed run.
 * Undefined — the outcome goes out as without a comparison — for a cancelled run, a
 * project's first run, a read that fails (logged) or one slower than COMPARISON_WAIT_MS.
 */
export function outcomeComparison(store: Store, orgId: string, logger?: Logger): OutcomeComparison {
  let once: Promise<BasedRunCompare | undefined> | undefined;
  return (run) => (once ??= compare(store, orgId, run, logger));
}

async function compare(store: Store, orgId: string, run: TestRun, logger?: Logger): Promise<BasedRunCompare | undefined> {
  if (!isTerminalRunStatus(run.status) || run.status === 'cancelled') return undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), COMPARISON_WAIT_MS);
    timer.unref?.();
  });
  try {
    const compared = await Promise.race([runComparisonOf(store, orgId, run), late]);
    if (compared === 'late') {
      logger?.warn('comparing a finished run with its previous run took too long: its outcome goes out without the comparison', { run_id: run.id, waited_ms: COMPARISON_WAIT_MS });
      return undefined;
    }
    return hasBase(compared) ? compared : undefined;
  } catch (err) {
    logger?.warn('comparing a finished run with its previous run failed: its outcome goes out without the comparison', { run_id: run.id, error: (err as Error).message });
    return undefined;
  } finally {
    clearTimeout(timer);
  }
}

const hasBase = (c: RunCompare): c is BasedRunCompare => c.base_run_id !== null;
