import { z } from 'zod';
import type { Hono } from 'hono';
import { AppError, notFound } from '@svc/core/errors';
import { RunRequestedEvent, FailureReportedEvent, RunRequestedAnswer } from '@svc/core/contracts/automation-integration';
import { automationWebhookService, type GenerateFromFailure, type StartAutomationRun } from '@svc/core/services/automation-webhooks';
import type { ApiEnv } from '../env.ts';
import { mountRoute, type RouteDef } from '../route.ts';
import { errorResponse } from '../errors.ts';
import { runGraphOf, type RunGraphAppDeps } from './runs.ts';
import { automationRunStarter } from '../../run-graph/automation-runs.ts';
import { generateFromFailureEvent } from '../../generation/from-event.ts';

/** An event is a small JSON document; a failure's breadcrumbs and stack are the largest part. */
export const AUTOMATION_WEBHOOK_MAX_BYTES = 1024 * 1024;

/**
 * POST /webhooks/automation: workflow-automation events — n8n, Zapier, Make, Power
 * Automate, a cron job's curl (docs/automation.md). Public: no session, API key or
 * organization header — the signature (X-Svc-Signature over X-Svc-Timestamp and the raw
 * body, with the secret of the integration X-Svc-Integration names) is the credential.
 */
export function automationWebhookRoutes(app: Hono<ApiEnv>, deps: RunGraphAppDeps, registry: RouteDef[]) {
  const events = automationWebhookService({ store: deps.store, clock: deps.clock, logger: deps.logger, publicUrl: deps.publicUrl });

  mountRoute(app, deps, registry, {
    method: 'post', path: '/webhooks/automation', tags: ['webhooks'], auth: 'public', readsOwnBody: true, maxBodyBytes: AUTOMATION_WEBHOOK_MAX_BYTES,
    summary: 'Workflow-automation events signed with an automation integration\'s secret (X-Svc-Integration, X-Svc-Timestamp, X-Svc-Signature; X-Svc-Delivery or `id` makes a redelivery answer as the first time): run.requested starts a run, failure.reported generates a regression test',
    body: z.union([RunRequestedEvent, FailureReportedEvent]).describe('The event (application/json); the signature is over these bytes as sent'),
    responses: {
      201: { description: 'failure.reported: the generated test, executed once (as POST /api/test/from-event answers)', schema: z.record(z.string(), z.unknown()) },
      202: { description: 'run.requested: the run started (it proceeds asynchronously); its outcome goes to callback_url when it ends', schema: RunRequestedAnswer },
      400: { description: 'not JSON, an unknown event (names event), or a field that is wrong (named)' },
      401: { description: 'no or a bad signature, a timestamp more than 5 minutes off, or an unknown integration (one answer for all)' },
      403: { description: 'the integration is paused (enabled: false)' },
      404: { description: 'no such project in the organization, or one outside the integration\'s projects' },
      409: { description: 'failure.reported: a copy of this delivery is still being handled by an earlier request; sent again later it answers that request\'s answer', headers: { 'Retry-After': 'seconds to wait before sending it again' } },
      413: { description: 'body above 1 MB' },
    },
  }, async ({ c }) => {
    const body = new Uint8Array(await c.req.arrayBuffer());
    // The run graph is looked up only when a run starts: failure.reported answers on a server without one.
    const startRun: StartAutomationRun = (orgId, run) => automationRunStarter(runGraphOf(deps))(orgId, run);
    const generate: GenerateFromFailure = async (orgId, input) => {
      const project = await deps.store.projects.get(orgId, input.project_id);
      if (!project) throw notFound('project');
      return generateFromFailureEvent({ store: deps.store, publisher: deps.publisher, executor: deps.generation, organizationId: orgId, requestId: c.get('requestId'), project, input });
    };
    let receipt;
    try {
      receipt = await events.receive((name) => c.req.header(name), body, { startRun, generate });
    } catch (err) {
      // A copy of a delivery still being handled: come back for the first request's answer.
      if (err instanceof AppError && err.code === 'CONFLICT') return errorResponse(c, err, { 'Retry-After': '60' });
      throw err;
    }
    const { status, answer, audit } = receipt;
    if (audit) c.set('audit', audit);
    return c.json(answer, status);
  });
}
