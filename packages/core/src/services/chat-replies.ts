import type { Clock } from '../ports/clock.ts';
import type { Logger } from '../ports/logger.ts';
import type { Store } from '../store/index.ts';
import { isTerminalRunStatus } from '../contracts/test-run.ts';
import { deliver, type Fetch } from '../notifications/deliver.ts';
import { failedTestsOf } from '../notifications/failed-tests.ts';
import { runOutcomeMessage } from '../chatops/messages.ts';
import { publicReportUrl } from '../reporting/run-links.ts';
import { outcomeComparison, type OutcomeComparison } from '../reporting/outcome-comparison.ts';
import { comparisonLine } from '../reporting/outcome-comparison-text.ts';

export interface ChatReplyServiceDeps {
  store: Store;
  clock: Clock;
  /** Default: the global fetch. */
  fetch?: Fetch;
  logger?: Logger;
  /** Where people reach this svc (SVC_PUBLIC_URL): the outcome links to the run's HTML report there. None: no link. */
  publicUrl?: string;
}

const MAX_FAILED_LISTED = 10;

/**
 * The outcome of a run a slash command started, posted to the command's response_url
 * (docs/chatops.md): once per run (claimed before posting), with the notifications'
 * delivery rules (three attempts on 5xx, 429 and network errors), and only while Slack
 * still takes it — a run that outlives the response_url's 30 minutes is logged and
 * skipped. Never throws: Slack being down does not fail a run.
 */
export function chatReplyService({ store, clock, fetch = globalThis.fetch as unknown as Fetch, logger, publicUrl }: ChatReplyServiceDeps) {
  const reportUrl = (runId: string) => publicReportUrl(publicUrl, runId);

  async function post(orgId: string, runId: string, comparison: OutcomeComparison): Promise<void> {
    const run = await store.testRuns.get(orgId, runId);
    if (!run || !run.thread_id.startsWith('chat-') || !isTerminalRunStatus(run.status)) return; // not a command's run: one read
    const reply = await store.chatReplies.get(orgId, run.thread_id);
    if (!reply || reply.status !== 'pending') return;
    if (!(await store.chatReplies.claim(orgId, run.thread_id))) return;
    if (clock.now().getTime() > Date.parse(reply.valid_until)) {
      await store.chatReplies.finish(orgId, run.thread_id, { status: 'expired', attempts: 0, http_status: null, error: `the run ended after the response_url expired (${reply.valid_until})` });
      logger?.info("a chat command's run outlived its Slack response_url: the outcome was not posted", { run_id: run.id, integration_id: reply.integration_id, valid_until: reply.valid_until });
      return;
    }
    // Sealed at rest: opened only here, where Slack needs it.
    const url = await store.chatReplies.responseUrl(orgId, run.thread_id);
    if (!url) return;
    const [project, compared, failed] = await Promise.all([store.projects.get(orgId, run.project_id), comparison(run), failedTestsOf(store, orgId, run.id, MAX_FAILED_LISTED)]);
    const message = runOutcomeMessage({ run, project: project?.name ?? run.project_id, failed, userId: reply.user_id, reportUrl: reportUrl(run.id), ...(compared ? { comparison: comparisonLine(compared) } : {}) });
    const outcome = await deliver(fetch, url, JSON.stringify(message), {});
    await store.chatReplies.finish(orgId, run.thread_id, outcome);
    if (outcome.status === 'failed') logger?.warn("a chat command's run outcome was not posted to Slack", { run_id: run.id, integration_id: reply.integration_id, http_status: outcome.http_status, error: outcome.error });
  }

  return {
    /** `comparison`: the run against its previous run, shared with the run's other outcomes (run-hooks); by default made here. */
    async runFinished(orgId: string, runId: string, comparison: OutcomeComparison = outcomeComparison(store, orgId, logger)): Promise<void> {
      try {
        await post(orgId, runId, comparison);
      } catch (err) {
        logger?.error("posting a chat command's run outcome failed", { run_id: runId, error: (err as Error).message });
      }
    },
  };
}
