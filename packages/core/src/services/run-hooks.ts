import type { Clock } from '../ports/clock.ts';
import type { Logger } from '../ports/logger.ts';
import type { Store } from '../store/index.ts';
import type { GraphDeps } from '../run-graph/deps.ts';
import type { Fetch } from '../notifications/deliver.ts';
import { notificationService } from './notifications.ts';
import { vcsStatusService } from './vcs-statuses.ts';
import { chatReplyService } from './chat-replies.ts';
import { automationCallbackService } from './automation-callbacks.ts';
import { outcomeComparison } from '../reporting/outcome-comparison.ts';

/**
 * What the run graph tells the outside world about a run, built once for every entry point
 * that runs the graph (the local run manager, the AWS task functions), so they cannot
 * drift: notification channels when it ends (docs/notifications.md), the commit status of
 * a webhook's run when it starts and ends (docs/vcs-webhooks.md), and the outcome of a
 * slash command's run to the command's Slack response_url (docs/chatops.md), and the outcome
 * of an automation event's run to its callback_url (docs/automation.md). None throws.
 * Each outcome says what changed against the project's previous run; that comparison is
 * made once per finished run, for whichever of them asks first (docs/run-compare.md).
 */
export function runHooks(o: { store: Store; clock: Clock; logger: Logger; publicUrl?: string; fetch?: Fetch }): Required<Pick<GraphDeps, 'runStarted' | 'runFinished'>> {
  const notifications = notificationService({ store: o.store, clock: o.clock, logger: o.logger, fetch: o.fetch });
  const statuses = vcsStatusService({ store: o.store, logger: o.logger, publicUrl: o.publicUrl, fetch: o.fetch });
  const chatReplies = chatReplyService({ store: o.store, clock: o.clock, logger: o.logger, publicUrl: o.publicUrl, fetch: o.fetch });
  const callbacks = automationCallbackService({ store: o.store, clock: o.clock, logger: o.logger, publicUrl: o.publicUrl, fetch: o.fetch });
  return {
    runStarted: statuses.runStarted,
    runFinished: async (orgId, runId) => {
      const comparison = outcomeComparison(o.store, orgId, o.logger);
      await Promise.all([
        notifications.runFinished(orgId, runId, comparison),
        statuses.runFinished(orgId, runId, comparison),
        chatReplies.runFinished(orgId, runId, comparison),
        callbacks.runFinished(orgId, runId, comparison),
      ]);
    },
  };
}
