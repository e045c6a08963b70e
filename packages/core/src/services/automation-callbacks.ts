import type { Clock } from '../ports/clock.ts';
import type { Logger } from '../ports/logger.ts';
import type { Store } from '../store/index.ts';
import { isTerminalRunStatus } from '../contracts/test-run.ts';
import { quarantinedFailedTests } from '../execution/totals.ts';
import type { AutomationRunOutcome } from '../contracts/automation-integration.ts';
import { deliver, type Fetch } from '../notifications/deliver.ts';
import { failedTestsOf } from '../notifications/failed-tests.ts';
import { automationHeaders } from '../automation/signature.ts';
import { runLinks } from '../reporting/run-links.ts';
import { outcomeComparison, type OutcomeComparison } from '../reporting/outcome-comparison.ts';
import { compareCounts } from '../reporting/outcome-comparison-text.ts';

const MAX_FAILED_LISTED = 10;

/**
 * The outcome of a run an automation event started, POSTed to the event's callback_url
 * (docs/automation.md), signed like the events with the integration's secret so the
 * receiver can tell it is svc's: once per run (claimed before posting), with the
 * notifications' delivery rules (three attempts on 5xx, 429 and network errors). Never
 * throws: a receiver that is down does not fail a run.
 */
export function automationCallbackService({ store, clock, fetch = globalThis.fetch as unknown as Fetch, logger, publicUrl }: { store: Store; clock: Clock; fetch?: Fetch; logger?: Logger; publicUrl?: string }) {
  async function post(orgId: string, runId: string, comparison: OutcomeComparison): Promise<void> {
    const run = await store.testRuns.get(orgId, runId);
    if (!run || !run.thread_id.startsWith('automation-') || !isTerminalRunStatus(run.status)) return; // not an event's run: one read
    const callback = await store.automationCallbacks.get(orgId, run.thread_id);
    if (!callback || callback.status !== 'pending') return;
    if (!(await store.automationCallbacks.claim(orgId, run.thread_id))) return;
    const integration = await store.automationIntegrations.get(orgId, callback.integration_id);
    if (!integration) {
      await store.automationCallbacks.finish(orgId, run.thread_id, { status: 'failed', attempts: 0, http_status: null, error: 'the integration was removed before the run ended: nothing to sign the outcome with' });
      return;
    }
    // Sealed at rest: opened only here, where the receiver needs them.
    const [url, { secret, previous_secret: previousSecret }] = await Promise.all([store.automationCallbacks.url(orgId, run.thread_id), store.automationIntegrations.signingSecrets(orgId, integration)]);
    if (!url) return;
    const [project, compared] = await Promise.all([store.projects.get(orgId, run.project_id), comparison(run)]);
    const outcome: AutomationRunOutcome = {
      event: 'run.finished',
      delivery_id: callback.delivery_id,
      run_id: run.id,
      project_id: run.project_id,
      project: project?.name ?? run.project_id,
      status: run.status,
      totals: { total: run.total_tests, passed: run.passed_tests, failed: run.failed_tests, quarantined: quarantinedFailedTests(run) },
      failed_tests: await failedTestsOf(store, orgId, run.id, MAX_FAILED_LISTED),
      error: run.error,
      started_at: run.started_at,
      completed_at: run.completed_at,
      links: runLinks(publicUrl, run.id),
      ...(compared ? { compare: compareCounts(compared) } : {}),
    };
    const body = JSON.stringify(outcome);
    // One delivery id per run, for every attempt: a receiver can drop a retry it already took.
    const headers = automationHeaders({ integrationId: integration.id, secret, previousSecret, body, now: clock.now(), deliveryId: `run-finished-${run.id}` });
    const result = await deliver(fetch, url, body, headers);
    await store.automationCallbacks.finish(orgId, run.thread_id, result);
    if (result.status === 'failed') logger?.warn("an automation event's run outcome was not delivered to its callback_url", { run_id: run.id, integration_id: integration.id, http_status: result.http_status, error: result.error });
  }

  return {
    /** `comparison`: the run against its previous run, shared with the run's other outcomes (run-hooks); by default made here. */
    async runFinished(orgId: string, runId: string, comparison: OutcomeComparison = outcomeComparison(store, orgId, logger)): Promise<void> {
      try {
        await post(orgId, runId, comparison);
      } catch (err) {
        logger?.error("posting an automation event's run outcome failed", { run_id: runId, error: (err as Error).message });
      }
    },
  };
}
