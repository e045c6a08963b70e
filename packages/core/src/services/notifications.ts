import { notFound } from '../errors.ts';
import { uuidv7 } from '../ids.ts';
import type { Clock } from '../ports/clock.ts';
import type { Logger } from '../ports/logger.ts';
import type { Store } from '../store/index.ts';
import type { ChannelSecrets, StoredChannel } from '../store/notifications.ts';
import { isTerminalRunStatus } from '../contracts/test-run.ts';
import { blockingFailedTests } from '../execution/totals.ts';
import type { NotificationChannel, NotificationChannelCreateInput, NotificationChannelUpdateInput, NotificationEvent } from '../contracts/notification.ts';
import { deliver, type DeliveryOutcome, type Fetch } from '../notifications/deliver.ts';
import { failedTestsOf } from '../notifications/failed-tests.ts';
import { newWebhookSecret } from '../auth/webhook-secret.ts';
import { signature, slackMessage, webhookPayload, type RunNotice } from '../notifications/messages.ts';
import { outcomeComparison, type OutcomeComparison } from '../reporting/outcome-comparison.ts';
import { compareCounts, comparisonLine } from '../reporting/outcome-comparison-text.ts';

export interface NotificationServiceDeps {
  store: Store;
  clock: Clock;
  /** Default: the global fetch. */
  fetch?: Fetch;
  logger?: Logger;
}

const MAX_FAILED_LISTED = 10;

/** A channel as the API shows it: no URL, no secret. */
export function publicChannel(c: StoredChannel): NotificationChannel {
  const { url: _u, signing_secret: _s, ...rest } = c;
  return rest;
}

const hintOf = (url: string) => new URL(url).origin;

/**
 * Notification channels and the messages a finished run sends through them
 * (docs/notifications.md).
 */
export function notificationService({ store, clock, fetch = globalThis.fetch as unknown as Fetch, logger }: NotificationServiceDeps) {
  async function checkProject(orgId: string, projectId: string | null | undefined) {
    if (projectId && !(await store.projects.get(orgId, projectId))) throw notFound('project');
  }

  /** Sends one notice to one channel, once per subject and event; the outcome goes to the channel's log. */
  async function send(orgId: string, channel: StoredChannel, notice: RunNotice, subject: string): Promise<DeliveryOutcome | undefined> {
    const deliveryId = await store.notifications.claimDelivery(orgId, channel.id, subject, notice.event, notice.event === 'test' ? null : notice.run.id);
    if (!deliveryId) return undefined; // sent before (a resumed run's report)
    const now = clock.now();
    const outcome = await store.notifications.secrets(orgId, channel).then(
      (secrets) => dispatch(channel.kind, secrets, notice, deliveryId, now),
      // A channel whose secrets do not open fails its own delivery (logged below); the others still go.
      (err: Error): DeliveryOutcome => ({ status: 'failed', attempts: 0, http_status: null, error: err.message }),
    );
    await store.notifications.recordDelivery(orgId, channel.id, subject, notice.event, outcome);
    if (outcome.status === 'failed') logger?.warn('a notification was not delivered', { channel_id: channel.id, event: notice.event, error: outcome.error });
    return outcome;
  }

  /** Posts one notice: Slack's message, or the signed JSON payload. */
  function dispatch(kind: StoredChannel['kind'], secrets: ChannelSecrets, notice: RunNotice, deliveryId: string, now: Date): Promise<DeliveryOutcome> {
    if (kind === 'slack') return deliver(fetch, secrets.url, JSON.stringify(slackMessage(notice)), {});
    const body = JSON.stringify(webhookPayload(notice, deliveryId, now));
    return deliver(fetch, secrets.url, body, { 'x-svc-event': notice.event, 'x-svc-delivery': deliveryId, 'x-svc-signature': signature(secrets.signing_secret ?? '', body, now) });
  }

  /** Which event a finished run is: failed, recovered (its project's previous finished run failed) or passed. */
  async function eventsOf(orgId: string, run: { id: string; project_id: string; status: string; failed_tests: number; results: Record<string, unknown> }): Promise<NotificationEvent[]> {
    if (run.status === 'cancelled') return [];
    // Failures of quarantined tests alone do not make a failed run (nor a recovery after one).
    if (run.status === 'failed' || blockingFailedTests(run) > 0) return ['run_failed'];
    // From this run back: runs started after it (a busy project) cannot push its predecessor off the page.
    const page = await store.testRuns.listForProject(run.project_id, 50, undefined, run.id);
    const previous = page.items.find((r) => r.id < run.id && isTerminalRunStatus(r.status) && r.status !== 'cancelled');
    const recovered = !!previous && (previous.status === 'failed' || blockingFailedTests(previous) > 0);
    return recovered ? ['run_recovered', 'run_passed'] : ['run_passed'];
  }

  async function noticeOf(orgId: string, runId: string, event: NotificationEvent, comparison: OutcomeComparison): Promise<RunNotice | undefined> {
    const run = await store.testRuns.get(orgId, runId);
    if (!run) return undefined;
    const [project, compared] = await Promise.all([store.projects.get(orgId, run.project_id), comparison(run)]);
    return {
      event,
      organization_id: orgId,
      project: { id: run.project_id, name: project?.name ?? run.project_id },
      run: { id: run.id, status: run.status, trigger: run.trigger, started_at: run.started_at, completed_at: run.completed_at, total: run.total_tests, passed: run.passed_tests, failed: run.failed_tests, error: run.error },
      failed_tests: await failedTestsOf(store, orgId, runId, MAX_FAILED_LISTED),
      ...(compared ? { compare: { counts: compareCounts(compared), line: comparisonLine(compared) } } : {}),
    };
  }

  return {
    async create(orgId: string, input: NotificationChannelCreateInput) {
      await checkProject(orgId, input.project_id);
      // Kept here to be shown once: the store keeps it sealed.
      const signingSecret = input.kind === 'webhook' ? newWebhookSecret() : null;
      const channel = await store.notifications.create(orgId, {
        name: input.name,
        kind: input.kind,
        url: input.url,
        url_hint: hintOf(input.url),
        project_id: input.project_id ?? null,
        events: input.events,
        enabled: input.enabled,
        signing_secret: signingSecret,
      });
      return { ...publicChannel(channel), signing_secret: signingSecret };
    },

    async get(orgId: string, id: string): Promise<StoredChannel> {
      const channel = await store.notifications.get(orgId, id);
      if (!channel) throw notFound('notification channel');
      return channel;
    },

    async update(orgId: string, id: string, patch: NotificationChannelUpdateInput) {
      await this.get(orgId, id);
      await checkProject(orgId, patch.project_id);
      const updated = await store.notifications.update(orgId, id, { ...patch, ...(patch.url ? { url_hint: hintOf(patch.url) } : {}) });
      if (!updated) throw notFound('notification channel');
      return publicChannel(updated);
    },

    async delete(orgId: string, id: string) {
      const channel = await store.notifications.delete(orgId, id);
      if (!channel) throw notFound('notification channel');
      return publicChannel(channel);
    },

    /** Sends a test message now and answers with what the endpoint said. */
    async test(orgId: string, id: string): Promise<DeliveryOutcome> {
      const channel = await this.get(orgId, id);
      const project = channel.project_id ? await store.projects.get(orgId, channel.project_id) : undefined;
      const notice: RunNotice = {
        event: 'test',
        organization_id: orgId,
        project: { id: project?.id ?? channel.project_id ?? orgId, name: project?.name ?? 'every project' },
        run: { id: '00000000-0000-7000-8000-000000000000', status: 'completed', trigger: 'manual', started_at: null, completed_at: null, total: 0, passed: 0, failed: 0, error: null },
        failed_tests: [],
      };
      return (await send(orgId, channel, notice, uuidv7(clock.now().getTime()))) ?? { status: 'failed', attempts: 0, http_status: null, error: 'not sent' };
    },

    /**
     * Tells every enabled channel whose rule matches that a run finished: one message per
     * channel and run (recovered wins over passed when a channel takes both). Called by the
     * run graph's report node; never throws (a notification must not fail a run).
     * `comparison`: the run against its previous run, shared with the run's other outcomes
     * (run-hooks); by default made here.
     */
    async runFinished(orgId: string, runId: string, comparison: OutcomeComparison = outcomeComparison(store, orgId, logger)): Promise<void> {
      try {
        const run = await store.testRuns.get(orgId, runId);
        if (!run || !isTerminalRunStatus(run.status)) return;
        // Channels first: most runs have none to tell, and the events need the project's earlier runs.
        const channels = (await store.notifications.all(orgId)).filter((c) => c.enabled && (!c.project_id || c.project_id === run.project_id));
        if (!channels.length) return;
        const events = await eventsOf(orgId, run);
        if (!events.length) return;
        const notices = new Map<NotificationEvent, Promise<RunNotice | undefined>>();
        await Promise.all(
          channels.map(async (channel) => {
            const event = events.find((e) => channel.events.includes(e));
            if (!event) return;
            if (!notices.has(event)) notices.set(event, noticeOf(orgId, runId, event, comparison));
            const notice = await notices.get(event);
            if (notice) await send(orgId, channel, notice, runId);
          }),
        );
      } catch (err) {
        logger?.error('notifying a finished run failed', { run_id: runId, error: (err as Error).message });
      }
    },
  };
}
