import type { Hono } from 'hono';
import { ExtractInput, ExtractResult } from '@svc/core/contracts/extract';
import { AppError, notFound } from '@svc/core/errors';
import { LlmError } from '@svc/core/llm/errors';
import type { AppDeps } from '../deps.ts';
import type { ApiEnv } from '../env.ts';
import { mountRoute, type RouteDef } from '../route.ts';
import { checkHosts } from '../allowed-hosts.ts';
import { oneOffTest } from '../one-off-test.ts';
import { planExtraction } from '../../extract/plan.ts';
import { fieldsResult, modelResult } from '../../extract/result.ts';

/** As act: an interactive call should not hold a browser (or the caller) for the 10 minutes a test may take. */
const EXTRACT_TIMEOUT_MS = 120_000;

/**
 * POST /api/extract (and /api/v1/extract): structured data read once from a project's
 * app in a fresh browser, after the given steps (signing in, opening the page). Fields by
 * selectors are read by the runner's extract step (on AWS in the browser function, like
 * act); an instruction is answered by the model from the final page's text, here, and
 * validated against the schema. A failed step or extraction is an outcome (200, status
 * failed), as act's are (docs/extract.md).
 */
export function extractRoutes(app: Hono<ApiEnv>, deps: AppDeps, registry: RouteDef[]) {
  for (const path of ['/api/extract', '/api/v1/extract']) {
    mountRoute(app, deps, registry, {
      method: 'post', path, summary: 'Extract structured data from a project\'s app in a fresh browser, after optional steps', tags: ['act'], auth: 'member', body: ExtractInput,
      responses: {
        200: { description: 'the data (status passed), or which step or field failed (status failed)', schema: ExtractResult },
        400: { description: 'invalid input or a URL outside the allowed hosts (the error names the field)' },
        404: { description: 'no such project in this organization' },
        501: { description: 'this deployment runs no browser, or an instruction was given and no language model is configured (NO_MODEL)' },
      },
    }, async ({ c, body, access }) => {
      const project = await deps.store.projects.get(access.organizationId, body.project_id);
      if (!project) throw notFound('project');
      const executor = deps.generation;
      if (!executor?.browser) throw new AppError('NOT_CONFIGURED', 'extraction needs a browser: this deployment has no browser function (SVC_BROWSER_FUNCTION_NAME, infra/browser.ts); or use the local runtime');
      // Before any browser starts: without a model an instruction cannot be answered.
      if (body.instruction !== undefined && !deps.llm?.configured) throw new LlmError('NO_MODEL', 'NO_MODEL: extracting with an instruction needs a language model and none is configured (SVC_LLM_PROVIDERS); give fields with selectors to extract without one', { field: 'instruction' });
      const appUrl = project.app_url ?? undefined;
      const plan = planExtraction({ url: body.url, appUrl, given: body.steps ?? [], fields: body.fields, allow: (url, field) => checkHosts(project, serverHosts(deps), url, field) });
      c.set('audit', { action: 'browser.extract', resource: `project:${project.id}`, metadata: { url: plan.startUrl, steps: plan.steps.length, mode: body.fields ? 'fields' : 'model' } });

      // plan.steps: a goto to the start when none was given first, the given steps, then the extract step made of fields.
      const offset = plan.steps.length - (body.steps?.length ?? 0) - (plan.extractIndex !== null ? 1 : 0);
      const test = oneOffTest({ name: 'extract', timeout_ms: EXTRACT_TIMEOUT_MS, steps: plan.steps }, (i) => (i === plan.extractIndex ? '' : i < offset ? 'url' : `steps.${i - offset}`));
      const run = await executor.run(test, { organizationId: access.organizationId, projectId: project.id, ...(appUrl && { baseUrl: appUrl }), finalPage: { screenshot: false, snapshot: body.instruction !== undefined } });
      const result = plan.extractIndex !== null
        ? fieldsResult(plan.steps, plan.startUrl, run, plan.extractIndex)
        : await modelResult(plan.steps, plan.startUrl, run, { model: { llm: deps.llm!, context: { organizationId: access.organizationId } }, instruction: body.instruction!, schema: body.schema! });
      return c.json(result satisfies ExtractResult);
    });
  }
}

/** The server's own allowed hosts (SVC_DISCOVERY_ALLOWED_HOSTS), as act and the audit read them. */
const serverHosts = (deps: AppDeps): string[] => deps.discovery?.allowedHosts ?? deps.qualityAudit?.allowedHosts ?? [];
