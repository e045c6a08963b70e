import type { Hono } from 'hono';
import { JsonObject } from '@svc/core/contracts/common';
import { VcsWebhookAnswer } from '@svc/core/contracts/vcs-integration';
import { vcsWebhookService, type StartVcsRun } from '@svc/core/services/vcs-webhooks';
import { readVcsRequest } from '@svc/core/vcs/request';
import type { AppDeps } from '../deps.ts';
import type { ApiEnv } from '../env.ts';
import { mountRoute, type RouteDef } from '../route.ts';
import { runGraphOf, type RunGraphAppDeps } from './runs.ts';
import { vcsRunStarter } from '../../run-graph/vcs-runs.ts';

/** GitHub fires no webhook above 25 MB; nothing larger is a host's delivery. */
export const VCS_WEBHOOK_MAX_BYTES = 25 * 1024 * 1024;

/**
 * POST /webhooks/vcs: GitHub and GitLab deliveries (docs/vcs-webhooks.md). Public: no
 * session, API key or organization header — the signature is the credential, and it
 * names the integration. The global per-IP rate limit applies (the request carries no
 * credential header, so it is counted by IP).
 */
export function vcsWebhookRoutes(app: Hono<ApiEnv>, deps: RunGraphAppDeps, registry: RouteDef[]) {
  const webhooks = vcsWebhookService({ store: deps.store, publisher: deps.publisher, logger: deps.logger });

  mountRoute(app, deps, registry, {
    method: 'post', path: '/webhooks/vcs', tags: ['webhooks'], auth: 'public', readsOwnBody: true, maxBodyBytes: VCS_WEBHOOK_MAX_BYTES,
    summary: 'Source-control host events: GitHub (X-GitHub-Event, X-GitHub-Delivery, X-Hub-Signature-256) or GitLab (X-Gitlab-Event, X-Gitlab-Token) push and pull/merge request webhooks start runs of the linked project',
    body: JsonObject.describe('The host\'s webhook payload, as it sends it (application/json)'),
    responses: {
      202: { description: 'accepted: the runs started (they proceed asynchronously), or why nothing ran (ignored), or that this delivery was handled before (duplicate)', schema: VcsWebhookAnswer },
      400: { description: 'not a GitHub or GitLab webhook, not JSON, or a payload without its repository' },
      401: { description: 'no signature, or one no integration of the repository verifies (also the answer for a repository with no integration)' },
      413: { description: 'body above 25 MB' },
      415: { description: 'not application/json (set the webhook\'s content type)' },
    },
  }, async ({ c }) => {
    const request = readVcsRequest((name) => c.req.header(name));
    const body = new Uint8Array(await c.req.arrayBuffer());
    // The run graph is looked up only when a run starts: a ping answers on a server without one.
    const startRun: StartVcsRun = (orgId, run) => vcsRunStarter(runGraphOf(deps))(orgId, run);
    const { answer, started } = await webhooks.receive(request, body, startRun, c.get('requestId'));
    if (started) {
      c.set('audit', {
        organizationId: started.organizationId,
        userId: `vcs:${started.integrationId}`,
        action: 'test_run.start',
        resource: `test_run:${started.runId}`,
        metadata: { trigger: 'vcs', project_id: started.projectId, integration_id: started.integrationId, delivery_id: answer.delivery_id, event: answer.event },
      });
    }
    return c.json(VcsWebhookAnswer.parse(answer), 202);
  });
}
