import { randomUUID } from 'node:crypto';
import { AppError, conflict, notFound, validationFailed } from '../errors.ts';
import type { Clock } from '../ports/clock.ts';
import type { Logger } from '../ports/logger.ts';
import type { Store } from '../store/index.ts';
import type { Project } from '../contracts/project.ts';
import type { HandledAutomationDelivery, StoredAutomationIntegration } from '../store/automation-integrations.ts';
import { parseInput } from '../contracts/parse.ts';
import { AutomationEvent, type FailureReportedEvent, type RunRequestedAnswer, type RunRequestedEvent } from '../contracts/automation-integration.ts';
import type { FromEventInput } from '../intelligence/generation/contracts.ts';
import { deliveryIdOf, readAutomationRequest, rejected, verifyAutomationSignature } from '../automation/signature.ts';
import { runLinks } from '../reporting/run-links.ts';
import { projectTestsToRun } from './project-tests.ts';
import { parseJsonObject } from './webhook-body.ts';
import { projectByRef } from './project-ref.ts';

/** What run.requested asks the run graph for. */
export interface AutomationRunRequest {
  project_id: string;
  test_ids: string[];
  /** `automation-<integration id>-<delivery id>`: the run graph claims a thread id once, so one delivery starts one run however often it arrives. */
  thread_id: string;
  app_url?: string;
  retries?: number;
}

/** Starts a run (the run graph's start, with trigger "automation"); returns its id. */
export type StartAutomationRun = (orgId: string, request: AutomationRunRequest) => Promise<{ id: string }>;
/** POST /api/test/from-event's generation: the generated test, executed once, as that route answers it. */
export type GenerateFromFailure = (orgId: string, input: FromEventInput) => Promise<Record<string, unknown>>;

/** What the route answers, and for the audit log what the event did. */
export interface AutomationReceipt {
  status: 201 | 202;
  answer: Record<string, unknown>;
  audit?: { organizationId: string; userId: string; action: string; resource: string; metadata: Record<string, unknown> };
}

/** A redelivery's answer: the first one, marked. */
const again = (first: HandledAutomationDelivery): AutomationReceipt => ({ status: first.http_status as AutomationReceipt['status'], answer: { ...first.answer, duplicate: true } });

/** A copy of a delivery that another request is still working on: the sender retries later and gets that answer. */
const inProgress = (deliveryId: string) => conflict(`delivery ${deliveryId} is being handled by an earlier request: send it again in a minute to get its answer`, { delivery_id: deliveryId, retry_after_seconds: 60 });

/** A grep is a case-insensitive regular expression; one that does not compile is the caller's error, named. */
function grepOf(source: string | undefined): RegExp | undefined {
  if (source === undefined) return undefined;
  try {
    return new RegExp(source, 'i');
  } catch (err) {
    throw validationFailed([{ path: 'grep', message: `not a regular expression: ${(err as Error).message}` }]);
  }
}

/**
 * Inbound workflow-automation events (POST /webhooks/automation, docs/automation.md): the
 * integration named by X-Svc-Integration, its secret verifying the signature over the
 * timestamp and the raw body, then run.requested starts a run and failure.reported
 * generates a test — each at most once per delivery id: a redelivery gets the first answer.
 */
export function automationWebhookService({ store, clock, logger, publicUrl }: { store: Store; clock: Clock; logger?: Logger; publicUrl?: string }) {
  /**
   * The current secret or, within its grace period, the one a rotation replaced (both are
   * checked, no early exit). A secret that does not open verifies nothing (logged, never the value).
   */
  async function verifies(orgId: string, integration: StoredAutomationIntegration, timestamp: number, body: Uint8Array, signature: string): Promise<boolean> {
    try {
      const { secret, previous_secret: previous } = await store.automationIntegrations.signingSecrets(orgId, integration);
      return [secret, previous].filter((s) => s !== null).map((s) => verifyAutomationSignature(s, timestamp, body, signature)).includes(true);
    } catch (err) {
      logger?.error("an automation integration's secret could not be opened", { organization_id: orgId, integration_id: integration.id, error: (err as Error).message });
      return false;
    }
  }

  /** The event's project, if it is the organization's and within the integration's projects; else 404, the same for both. */
  async function projectOf(orgId: string, integration: StoredAutomationIntegration, event: { project_id?: string; project?: string }): Promise<Project> {
    const project = await projectByRef(store, orgId, (event.project_id ?? event.project)!);
    if (!project || (integration.project_ids.length && !integration.project_ids.includes(project.id))) throw notFound('project');
    return project;
  }

  async function runRequested(orgId: string, integration: StoredAutomationIntegration, event: RunRequestedEvent, deliveryId: string | null, startRun: StartAutomationRun): Promise<AutomationReceipt> {
    const project = await projectOf(orgId, integration, event);
    const testIds = event.test_ids ?? (await projectTestsToRun(store, orgId, project.id, event.tags ?? [], grepOf(event.grep)));
    const threadId = `automation-${integration.id}-${deliveryId ?? randomUUID()}`;
    // Where the outcome goes is recorded before the run exists, so a run that ends at once still finds it.
    if (event.callback_url) await store.automationCallbacks.record(orgId, { thread_id: threadId, integration_id: integration.id, delivery_id: deliveryId, callback_url: event.callback_url });
    let runId: string | undefined;
    try {
      runId = (await startRun(orgId, { project_id: project.id, test_ids: testIds, thread_id: threadId, ...(event.base_url ? { app_url: event.base_url } : {}), ...(event.retries !== undefined ? { retries: event.retries } : {}) })).id;
    } catch (err) {
      // The same delivery is being started by a concurrent request (the tool retried at once): its run is this delivery's.
      if (err instanceof AppError && err.code === 'CONFLICT') runId = await store.testRuns.runOfThread(threadId);
      if (!runId) throw err;
    }
    const answer: RunRequestedAnswer = { event: 'run.requested', delivery_id: deliveryId, run_id: runId, project_id: project.id, tests: testIds.length, links: runLinks(publicUrl, runId) };
    return {
      status: 202,
      answer,
      audit: { organizationId: orgId, userId: `automation:${integration.id}`, action: 'test_run.start', resource: `test_run:${runId}`, metadata: { trigger: 'automation', integration_id: integration.id, project_id: project.id, delivery_id: deliveryId, callback: !!event.callback_url } },
    };
  }

  async function failureReported(orgId: string, integration: StoredAutomationIntegration, event: FailureReportedEvent, deliveryId: string | null, generate: GenerateFromFailure): Promise<AutomationReceipt> {
    const project = await projectOf(orgId, integration, event);
    const generated = await generate(orgId, { project_id: project.id, event: event.failure, execute: event.execute, ...(event.name ? { name: event.name } : {}), ...(event.base_url ? { base_url: event.base_url } : {}) });
    const id = (generated.generated_test as { id?: string } | undefined)?.id;
    return {
      status: 201,
      answer: { event: 'failure.reported', delivery_id: deliveryId, project_id: project.id, ...generated },
      audit: { organizationId: orgId, userId: `automation:${integration.id}`, action: 'test.generate', resource: `generated_test:${id}`, metadata: { source: 'event', integration_id: integration.id, project_id: project.id, delivery_id: deliveryId } },
    };
  }

  /**
   * Work whose result has no natural key (a generated test), done once per delivery: the
   * delivery is claimed first, so a copy arriving meanwhile is told to come back (409)
   * rather than generating a second test; a failure gives the claim up for the retry.
   */
  async function onceClaimed(orgId: string, integrationId: string, deliveryId: string, work: () => Promise<AutomationReceipt>): Promise<AutomationReceipt> {
    const token = randomUUID();
    if (!(await store.automationIntegrations.claim(orgId, integrationId, deliveryId, token))) {
      const recorded = await store.automationIntegrations.handled(integrationId, deliveryId);
      if (recorded && recorded !== 'pending') return again(recorded);
      throw inProgress(deliveryId);
    }
    let receipt: AutomationReceipt;
    try {
      receipt = await work();
    } catch (err) {
      await store.automationIntegrations.release(integrationId, deliveryId, token);
      throw err;
    }
    if (!(await store.automationIntegrations.markHandled(orgId, integrationId, deliveryId, { http_status: receipt.status, answer: receipt.answer }, token))) {
      // The claim lapsed mid-work and another request answered meanwhile: that answer stands.
      logger?.warn("a delivery outlived its claim; the other request's answer stands", { integration_id: integrationId, delivery_id: deliveryId });
      const recorded = await store.automationIntegrations.handled(integrationId, deliveryId);
      if (recorded && recorded !== 'pending') return again(recorded);
    }
    return receipt;
  }

  return {
    /**
     * Handles one event. Throws the project's errors: no or a bad signature, a stale
     * timestamp or an unknown integration (401, one answer for all), a paused integration
     * (403, said only to a verified caller), a body that is not an event (400 naming the
     * field), a project it may not act on (404).
     */
    async receive(header: (name: string) => string | undefined, body: Uint8Array, handlers: { startRun: StartAutomationRun; generate: GenerateFromFailure }): Promise<AutomationReceipt> {
      const request = readAutomationRequest(header, clock.now());
      const found = await store.automationIntegrations.byId(request.integration_id);
      if (!found || !(await verifies(found.organizationId, found.integration, request.timestamp, body, request.signature))) {
        logger?.warn('an automation event was refused: no integration verifies its signature', { integration_id: request.integration_id, known: !!found });
        throw rejected();
      }
      const { organizationId: orgId, integration } = found;
      if (!integration.enabled) throw new AppError('FORBIDDEN', 'this automation integration is paused: an admin can enable it again (PATCH enabled: true)');

      const payload = parseJsonObject(body);
      const event = parseInput(AutomationEvent, payload, 'body');
      const deliveryId = deliveryIdOf(request, event.id);
      const first = deliveryId ? await store.automationIntegrations.handled(integration.id, deliveryId) : undefined;
      if (first === 'pending') throw inProgress(deliveryId!);
      if (first) return again(first);

      if (event.event === 'run.requested') {
        // One delivery is one thread, which the run graph claims once: a concurrent copy gets the same run.
        const receipt = await runRequested(orgId, integration, event, deliveryId, handlers.startRun);
        if (deliveryId && !(await store.automationIntegrations.markHandled(orgId, integration.id, deliveryId, { http_status: receipt.status, answer: receipt.answer }))) {
          const recorded = await store.automationIntegrations.handled(integration.id, deliveryId);
          if (recorded && recorded !== 'pending') return again(recorded);
        }
        return receipt;
      }
      const work = () => failureReported(orgId, integration, event, deliveryId, handlers.generate);
      return deliveryId ? onceClaimed(orgId, integration.id, deliveryId, work) : work();
    },
  };
}
