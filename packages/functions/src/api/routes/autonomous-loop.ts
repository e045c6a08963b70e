import { z } from 'zod';
import type { Hono } from 'hono';
import { HttpUrl } from '@svc/core/contracts/project';
import { RunStartedSchema } from '@svc/core/run-graph/contracts';
import { AppError, notFound, validationFailed } from '@svc/core/errors';
import { limits } from '@svc/core/contracts/limits';
import type { AppDeps } from '../deps.ts';
import type { ApiEnv } from '../env.ts';
import { mountRoute, type RouteDef } from '../route.ts';
import { checkHosts } from '../allowed-hosts.ts';
import { DiscoveryLogin } from './discovery.ts';
import { runGraphOf, userOf } from './runs.ts';
import { runAutonomousLoop } from '../../discovery/autonomous-loop.ts';

const AutonomousLoopInput = z.strictObject({
  project_id: z.uuid().describe('Project whose app is discovered, tested and healed'),
  start_url: HttpUrl.optional().describe("URL to start discovery from; defaults to the project's app_url"),
  max_pages: z.number().int().min(1).max(20).default(10).describe('Pages to discover, 1..20 (default 10): the crawl is part of this request'),
  login: DiscoveryLogin.optional().describe('Sign in before crawling (the password is used for the crawl only, never stored)'),
  healing_enabled: z.boolean().default(true).describe('Heal broken locators during the run (default true)'),
  require_test_plan_approval: z.boolean().default(false).describe('Pause the run until a person approves the generated tests (default false)'),
  retries: z.number().int().min(0).max(limits.MAX_TEST_RETRIES).optional().describe('Times a failed test is run again before it counts as failed'),
});

const LoopResponse = RunStartedSchema.partial().extend({
  discovery_session_id: z.string().describe('The stored discovery session: its pages and flows'),
  pages: z.number().int().describe('Pages discovery visited'),
  tests: z.array(z.object({ id: z.string(), name: z.string(), kind: z.string().describe('smoke, or the flow type (authentication, form, crud, navigation, …)'), created: z.boolean().describe('false: an earlier loop\'s test of that name, updated') })),
  skipped: z.array(z.object({ name: z.string(), reason: z.string() })).describe('What did not become a test, and why'),
  run: RunStartedSchema.shape.run.nullable().describe('The run of the tests; null when discovery found nothing to test'),
});

/**
 * POST /api/quality/autonomous-loop (and /api/v1/…): the spec's "full autonomous run" —
 * discover the app, write tests from what was found, run them with self-healing and
 * report (discovery/autonomous-loop.ts). Answers once the run has started: follow it with
 * its stream_url or /api/v1/test/status/{id}.
 */
export function autonomousLoopRoutes(app: Hono<ApiEnv>, deps: AppDeps, registry: RouteDef[]) {
  for (const path of ['/api/quality/autonomous-loop', '/api/v1/quality/autonomous-loop']) {
    mountRoute(app, deps, registry, {
      method: 'post', path, summary: 'Discover a project\'s app, generate tests from its pages and flows, and run them with self-healing (the autonomous loop)', tags: ['quality'], auth: 'member', body: AutonomousLoopInput,
      responses: {
        201: { description: 'tests written and their run started (run null when nothing was found to test)', schema: LoopResponse },
        400: { description: 'invalid input or a start URL outside the allowed hosts (the error names the field)' },
        404: { description: 'no such project in this organization' },
        501: { description: 'this deployment runs no browser or no run graph' },
        503: { description: 'the browser function could not be invoked' },
      },
    }, async ({ c, body, access, principal }) => {
      const project = await deps.store.projects.get(access.organizationId, body.project_id);
      if (!project) throw notFound('project');
      const startUrl = body.start_url ?? project.app_url;
      if (!startUrl) throw validationFailed([{ path: 'start_url', message: 'required when the project has no app_url' }]);
      // Both before the crawl: a loop that cannot run its tests should not crawl first.
      const runGraph = runGraphOf(deps);
      const discovery = deps.discovery;
      if (!discovery) throw new AppError('NOT_CONFIGURED', 'the autonomous loop needs a browser for discovery: this deployment has none (SVC_BROWSER_FUNCTION_NAME on AWS)');
      checkHosts(project, discovery.allowedHosts, startUrl, 'start_url');
      if (body.login) checkHosts(project, discovery.allowedHosts, body.login.url, 'login.url');
      const outcome = await runAutonomousLoop({ store: deps.store, discovery, runGraph }, access.organizationId, userOf(principal), {
        projectId: project.id,
        appUrl: project.app_url ?? null,
        crawl: { startUrl, maxPages: body.max_pages, maxDepth: 3, pageTimeoutMs: 15_000, deadlineMs: 60_000, ...(body.login ? { login: body.login } : {}) },
        run: { healing_enabled: body.healing_enabled, require_test_plan_approval: body.require_test_plan_approval, ...(body.retries !== undefined ? { retries: body.retries } : {}) },
      });
      c.set('audit', {
        action: 'quality.autonomous_loop',
        resource: `project:${project.id}`,
        metadata: { start_url: startUrl, discovery_session_id: outcome.discoverySessionId, tests: outcome.tests.length, created: outcome.tests.filter((t) => t.created).length, run_id: outcome.started?.run.id ?? null },
      });
      const started = outcome.started;
      return c.json({
        ...(started ? { thread_id: started.threadId, job_id: started.run.id, stream_url: `/stream/${encodeURIComponent(started.threadId)}` } : {}),
        run: started?.run ?? null,
        discovery_session_id: outcome.discoverySessionId,
        pages: outcome.pages,
        tests: outcome.tests,
        skipped: outcome.skipped,
      }, 201);
    });
  }
}
