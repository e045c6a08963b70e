import type { Logger } from '../ports/logger.ts';
import type { Store } from '../store/index.ts';
import type { VcsStatusPhase } from '../store/vcs-statuses.ts';
import type { TestRun } from '../contracts/test-run.ts';
import { isTerminalRunStatus } from '../contracts/test-run.ts';
import { blockingFailedTests, quarantinedFailures } from '../execution/totals.ts';
import { deliver, type Fetch } from '../notifications/deliver.ts';
import { runSummaryOf } from '../run-graph/run-summary.ts';
import { commitStatusRequest, shortDescription, stateFor, type RunVerdict } from '../vcs/commit-status.ts';
import { publicReportUrl } from '../reporting/run-links.ts';
import { outcomeComparison, type BasedRunCompare, type OutcomeComparison } from '../reporting/outcome-comparison.ts';
import { failedBreakdown, fixedSuffix } from '../reporting/outcome-comparison-text.ts';

export interface VcsStatusServiceDeps {
  store: Store;
  /** Default: the global fetch. */
  fetch?: Fetch;
  logger?: Logger;
  /** Where people reach this svc (SVC_PUBLIC_URL); the status links to the run's HTML report there. None: no link. */
  publicUrl?: string;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/**
 * "12 passed, 2 failed (1 new, 1 already failing), 2 healed · 1 fixed": the report's counts
 * (passed without the healed), zeros left out but passed; against the previous run when
 * there is one to compare with (well under the 140 characters a host takes).
 */
function countsOf(t: { passed: number; failed: number; healed: number; skipped: number; results: Array<{ status: string; metadata: Record<string, unknown> }> }, compared: BasedRunCompare | undefined): string {
  const failed = t.failed && `${t.failed} failed${failedBreakdown(compared, quarantinedFailures(t.results))}`;
  return [`${t.passed} passed`, failed, t.healed && `${t.healed} healed`, t.skipped && `${t.skipped} skipped`].filter(Boolean).join(', ') + fixedSuffix(compared);
}

/**
 * Commit statuses for the runs webhooks start (docs/vcs-webhooks.md, Commit statuses):
 * pending (GitLab running) when the run has planned its tests, then its outcome. Only for
 * runs whose thread has a recorded commit and whose integration has a token. Posted with
 * the notifications' delivery rules (retries on 5xx/429/network errors) once per run and
 * phase; every outcome, with the host's answer, goes to the integration's status log.
 * Never throws: a host that is down or refuses the token does not fail a run.
 */
export function vcsStatusService({ store, fetch = globalThis.fetch as unknown as Fetch, logger, publicUrl }: VcsStatusServiceDeps) {
  // A run's pending status may still be on its way (locally it is not awaited): its outcome waits for it, so the host ends on the outcome.
  const started = new Map<string, Promise<void>>();
  const reportUrl = (runId: string) => publicReportUrl(publicUrl, runId);

  async function post(orgId: string, run: Pick<TestRun, 'id' | 'thread_id'>, phase: VcsStatusPhase, verdict: RunVerdict, description: () => Promise<string>): Promise<void> {
    if (!run.thread_id.startsWith('vcs-')) return; // not a webhook's run: no reads
    const commit = await store.vcsStatuses.commitOf(orgId, run.thread_id);
    if (!commit) return;
    const integration = await store.vcsIntegrations.get(orgId, commit.integration_id);
    if (!integration?.status_token) return;
    // Sealed at rest: opened only here, where the host needs it (a token that does not open fails this post, logged).
    const { status_token: token } = await store.vcsIntegrations.secrets(orgId, integration);
    if (!token) return;
    const state = stateFor(commit.provider, verdict);
    const text = shortDescription(await description());
    if (!(await store.vcsStatuses.claim(orgId, integration.id, run.id, phase, { commit_sha: commit.commit_sha, state, description: text }))) return;
    const request = commitStatusRequest({
      provider: commit.provider,
      apiUrl: integration.api_url,
      repository: commit.repository,
      sha: commit.commit_sha,
      token,
      state,
      description: text,
      context: integration.status_context,
      targetUrl: reportUrl(run.id),
    });
    const outcome = await deliver(fetch, request.url, request.body, request.headers);
    await store.vcsStatuses.record(orgId, integration.id, run.id, phase, outcome);
    if (outcome.status === 'failed') logger?.warn('a commit status was not posted', { integration_id: integration.id, run_id: run.id, state, error: outcome.error });
  }

  const safely = async (what: string, runId: string, work: () => Promise<void>) => {
    try {
      await work();
    } catch (err) {
      logger?.error(`posting a commit status failed (${what})`, { run_id: runId, error: (err as Error).message });
    }
  };

  return {
    /** The run has planned `tests` tests and is about to run them. */
    runStarted(orgId: string, runId: string, tests: number): Promise<void> {
      const work = safely('pending', runId, async () => {
        const run = await store.testRuns.get(orgId, runId);
        if (run && !isTerminalRunStatus(run.status)) await post(orgId, run, 'started', 'running', async () => `svc is running ${plural(tests, 'test')}`);
      });
      started.set(runId, work);
      return work.finally(() => started.delete(runId));
    },

    /**
     * The run is final: success, failure (a test failed), error (the run failed as a whole
     * or was cancelled). `comparison`: the run against its previous run, shared with the
     * run's other outcomes (run-hooks); by default made here.
     */
    async runFinished(orgId: string, runId: string, comparison: OutcomeComparison = outcomeComparison(store, orgId, logger)): Promise<void> {
      await started.get(runId);
      await safely('outcome', runId, async () => {
        const run = await store.testRuns.get(orgId, runId);
        if (!run || !isTerminalRunStatus(run.status)) return;
        if (run.status === 'cancelled') return post(orgId, run, 'finished', 'cancelled', async () => 'the run was cancelled');
        if (run.status === 'failed') return post(orgId, run, 'finished', 'errored', async () => `the run failed: ${run.error ?? 'unknown error'}`);
        // A quarantined test's failure is in the counts but does not fail the commit.
        const verdict: RunVerdict = blockingFailedTests(run) > 0 ? 'failed' : 'passed';
        await post(orgId, run, 'finished', verdict, async () => {
          const [summary, compared] = await Promise.all([runSummaryOf(store, orgId, run), comparison(run)]);
          return countsOf(summary, compared);
        });
      });
    },
  };
}
