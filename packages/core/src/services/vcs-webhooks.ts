import { AppError, validationFailed } from '../errors.ts';
import type { Logger } from '../ports/logger.ts';
import type { EventPublisher } from '../ports/events.ts';
import type { Store } from '../store/index.ts';
import type { NewVcsDelivery, StoredVcsIntegration } from '../store/vcs-integrations.ts';
import type { VcsWebhookAnswer } from '../contracts/vcs-integration.ts';
import type { RunSource } from '../contracts/run-source.ts';
import { eventSources, vcsPullRequest } from '../events/producers.ts';
import { decide } from '../vcs/decide.ts';
import type { VcsEvent } from '../vcs/event.ts';
import { githubEvent, githubRepository } from '../vcs/github.ts';
import { gitlabEvent, gitlabRepository } from '../vcs/gitlab.ts';
import { deliveryIdOf, type VcsRequest } from '../vcs/request.ts';
import { verifySignature } from '../vcs/signature.ts';
import { projectTestsToRun } from './project-tests.ts';
import { parseJsonObject } from './webhook-body.ts';
import { publicIntegration } from './vcs-integrations.ts';

/** What a webhook asks the run graph for. */
export interface VcsRunRequest {
  project_id: string;
  test_ids: string[];
  /** `vcs-<integration id>-<delivery id>`: the run graph claims a thread id once, so one delivery starts one run however often it arrives. */
  thread_id: string;
  changed_files?: string[];
  pr_number?: number;
  healing_enabled?: boolean;
  /** Where the run's code came from (it picks the run's default comparison base); absent when the event names no branch. */
  source?: RunSource;
}

/** Starts a run (the run graph's start, with trigger "vcs"); returns its id. */
export type StartVcsRun = (orgId: string, request: VcsRunRequest) => Promise<{ id: string }>;

export interface VcsWebhookDeps {
  store: Store;
  publisher?: EventPublisher;
  logger?: Logger;
}

/** The answer, and for the audit log the organization and run a started delivery belongs to. */
export interface VcsReceipt {
  answer: VcsWebhookAnswer;
  started?: { organizationId: string; integrationId: string; runId: string; projectId: string };
}

const REJECTED = 'the signature does not match: no integration of this repository has the secret it was made with (check the repository name on the integration and the secret on the webhook)';

/** The delivery log's view of an event: where it happened and who did it. */
function facts(e: VcsEvent | undefined): Pick<NewVcsDelivery, 'branch' | 'commit_sha' | 'pusher' | 'pr_number' | 'changed_files'> {
  if (e?.kind === 'push') return { branch: e.branch, commit_sha: e.commit_sha, pusher: e.pusher, pr_number: null, changed_files: e.changed_files?.length ?? null };
  if (e?.kind === 'pull_request') return { branch: e.head_ref, commit_sha: e.head_sha, pusher: e.author, pr_number: e.number, changed_files: null };
  return { branch: null, commit_sha: null, pusher: null, pr_number: null, changed_files: null };
}

/**
 * The run's source: a push's branch, or a pull request's head branch with its target. A
 * pull request whose payload names no target is kept as its head branch alone (compared
 * with that branch's runs) rather than guessed into the default branch.
 */
function sourceOf(provider: RunSource['provider'], e: VcsEvent): RunSource | undefined {
  if (e.kind === 'push' && e.branch) return { provider, repository: e.repository, branch: e.branch, commit_sha: e.commit_sha, pull_request: null };
  if (e.kind === 'pull_request' && e.head_ref) {
    return { provider, repository: e.repository, branch: e.head_ref, commit_sha: e.head_sha, pull_request: e.base_ref ? { number: e.number, base_branch: e.base_ref } : null };
  }
  return undefined;
}

/**
 * Inbound source-control webhooks (POST /webhooks/vcs, docs/vcs-webhooks.md): find the
 * integrations of the payload's repository, keep the one whose secret made the signature,
 * then start a run of its project — once per delivery id — or say why not. Every outcome
 * goes to the integration's delivery log.
 */
export function vcsWebhookService({ store, publisher, logger }: VcsWebhookDeps) {
  async function publishPullRequest(orgId: string, integration: StoredVcsIntegration, e: VcsEvent, correlationId: string) {
    if (e.kind !== 'pull_request' || !publisher) return;
    const optional = Object.fromEntries(Object.entries({ head_sha: e.head_sha, head_ref: e.head_ref, base_ref: e.base_ref, url: e.url }).filter(([, v]) => v !== null));
    const event = vcsPullRequest(
      { source: eventSources.webhooks, tenant_id: orgId, correlation_id: correlationId },
      { provider: integration.provider, repository: integration.repository, pr_number: e.number, action: e.action, project_id: integration.project_id, ...optional },
    );
    // The run is what the delivery is for; a bus that is down must not lose it.
    await publisher.publish(event).catch((err) => logger?.warn('integration.vcs.pr was not published', { error: (err as Error).message, organization_id: orgId }));
  }

  /**
   * Whether a candidate's secret — or, within its grace period, the one a rotation replaced
   * — verifies the delivery (both are checked, no early exit). A secret that does not open is
   * logged (naming the integration, never a value) and verifies nothing, so another
   * organization's integration of the same repository still works.
   */
  async function verifies(c: { organizationId: string; integration: StoredVcsIntegration }, request: VcsRequest, body: Uint8Array): Promise<boolean> {
    try {
      const { secret, previous_secret: previous } = await store.vcsIntegrations.signingSecrets(c.organizationId, c.integration);
      const results = [secret, previous].filter((s) => s !== null).map((s) => verifySignature(request.provider, s, body, request.signature));
      return results.includes(true);
    } catch (err) {
      logger?.error('a VCS integration\'s secret could not be opened', { organization_id: c.organizationId, integration_id: c.integration.id, error: (err as Error).message });
      return false;
    }
  }

  return {
    /**
     * Handles one delivery. Throws the project's errors for what it refuses: a body that
     * is not JSON (400), no repository (400), a signature no integration verifies (401,
     * the same for an unknown repository, so the answer does not tell which repositories
     * are set up), a run that cannot start (its error; nothing is recorded, so the host's
     * redelivery tries again).
     */
    async receive(request: VcsRequest, body: Uint8Array, startRun: StartVcsRun, correlationId: string): Promise<VcsReceipt> {
      const payload = parseJsonObject(body);
      const repository = request.provider === 'github' ? githubRepository(payload) : gitlabRepository(payload);
      if (!repository) {
        throw validationFailed([{ path: request.provider === 'github' ? 'repository.full_name' : 'project.path_with_namespace', message: 'required: svc takes repository webhooks' }]);
      }
      const deliveryId = deliveryIdOf(request, body);
      const candidates = await store.vcsIntegrations.byRepository(request.provider, repository);
      // Every candidate is checked (no early exit), so the time taken says nothing either.
      const verified = (await Promise.all(candidates.map(async (c) => ((await verifies(c, request, body)) ? c : undefined)))).filter((c) => c !== undefined);
      const match = verified[0];
      if (!match) {
        const entry = { delivery_id: deliveryId, event: request.event, outcome: 'rejected' as const, run_id: null, reason: 'the signature does not match the integration\'s secret', ...facts(undefined) };
        await Promise.all(candidates.map((c) => store.vcsIntegrations.log(c.organizationId, { ...entry, integration_id: c.integration.id })));
        throw new AppError('INVALID_SIGNATURE', REJECTED);
      }

      const { organizationId: orgId, integration } = match;
      const log = (entry: Omit<NewVcsDelivery, 'integration_id' | 'delivery_id'>) => store.vcsIntegrations.log(orgId, { integration_id: integration.id, delivery_id: deliveryId, ...entry });
      let event: VcsEvent;
      try {
        event = request.provider === 'github' ? githubEvent(request.event, payload) : gitlabEvent(request.event, payload);
      } catch (err) {
        await log({ event: request.event, outcome: 'failed', run_id: null, reason: (err as Error).message, ...facts(undefined) });
        throw err;
      }
      const answerOf = (a: Omit<VcsWebhookAnswer, 'delivery_id' | 'event'>): VcsWebhookAnswer => ({ delivery_id: deliveryId, event: event.name, ...a });

      const duplicate = async (): Promise<VcsReceipt> => {
        const first = await store.vcsIntegrations.handled(integration.id, deliveryId);
        await log({ event: event.name, outcome: 'duplicate', run_id: first?.run_id ?? null, reason: 'this delivery was handled before', ...facts(event) });
        const runs = first?.run_id ? [{ run_id: first.run_id, project_id: first.project_id }] : [];
        return { answer: answerOf({ runs, duplicate: true, ...(first?.reason && !first.run_id ? { ignored: first.reason } : {}), message: `delivery ${deliveryId} was handled before; nothing more was done` }) };
      };
      if (await store.vcsIntegrations.handled(integration.id, deliveryId)) return duplicate();

      const decision = decide(publicIntegration(integration), event);
      const publishes = integration.enabled && integration.events.includes('pull_request');
      if ('ignored' in decision) {
        if (!(await store.vcsIntegrations.markHandled(orgId, integration.id, deliveryId, { outcome: 'ignored', run_id: null, project_id: integration.project_id, reason: decision.ignored }))) return duplicate();
        await log({ event: event.name, outcome: 'ignored', run_id: null, reason: decision.ignored, ...facts(event) });
        if (publishes) await publishPullRequest(orgId, integration, event, correlationId);
        return { answer: answerOf({ runs: [], ignored: decision.ignored, message: decision.ignored }) };
      }

      const threadId = `vcs-${integration.id}-${deliveryId}`;
      let runId: string | undefined;
      try {
        const testIds = await projectTestsToRun(store, orgId, integration.project_id, integration.tags);
        // The commit goes beside the run's thread before the run exists, so its statuses find it however fast it ends.
        const sha = facts(event).commit_sha;
        const source = sourceOf(integration.provider, event);
        if (sha) await store.vcsStatuses.recordCommit(orgId, { thread_id: threadId, integration_id: integration.id, provider: integration.provider, repository: event.repository, commit_sha: sha, delivery_id: deliveryId });
        runId = (await startRun(orgId, {
          project_id: integration.project_id,
          test_ids: testIds,
          thread_id: threadId,
          ...(decision.run.changed_files ? { changed_files: decision.run.changed_files } : {}),
          ...(decision.run.pr_number ? { pr_number: decision.run.pr_number } : {}),
          ...(integration.healing_enabled !== null ? { healing_enabled: integration.healing_enabled } : {}),
          ...(source ? { source } : {}),
        })).id;
      } catch (err) {
        // The same delivery is being started by another request (or was, before a crash): its run is this delivery's.
        if (err instanceof AppError && err.code === 'CONFLICT') runId = await store.testRuns.runOfThread(threadId);
        if (!runId) {
          await log({ event: event.name, outcome: 'failed', run_id: null, reason: err instanceof AppError ? err.message : 'internal error', ...facts(event) });
          throw err;
        }
      }
      if (!(await store.vcsIntegrations.markHandled(orgId, integration.id, deliveryId, { outcome: 'started', run_id: runId, project_id: integration.project_id, reason: decision.run.note ?? null }))) return duplicate();
      await log({ event: event.name, outcome: 'started', run_id: runId, reason: decision.run.note ?? null, ...facts(event) });
      if (publishes) await publishPullRequest(orgId, integration, event, correlationId);
      const focus = decision.run.changed_files ? `, focused on ${decision.run.changed_files.length} changed files` : decision.run.note ? ` (${decision.run.note})` : '';
      return {
        answer: answerOf({ runs: [{ run_id: runId, project_id: integration.project_id }], message: `started run ${runId}${focus}` }),
        started: { organizationId: orgId, integrationId: integration.id, runId, projectId: integration.project_id },
      };
    },
  };
}
