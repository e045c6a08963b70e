import type { Hono } from 'hono';
import { ActInput, ActResult, type ActInput as ActBody } from '@svc/core/contracts/act';
import { TestDefinition, type Step } from '@svc/core/contracts/steps';
import { TestCreateInput } from '@svc/core/contracts/test';
import { AppError, notFound } from '@svc/core/errors';
import type { Project } from '@svc/core/store/index';
import type { AppDeps } from '../deps.ts';
import type { ApiEnv } from '../env.ts';
import { mountRoute, type RouteDef } from '../route.ts';
import { checkHosts } from '../allowed-hosts.ts';
import { createTest } from '../create-test.ts';
import { oneOffTest } from '../one-off-test.ts';
import { stepsFromInstruction, type InstructionSteps } from '../../act/instruction-steps.ts';
import { planActions } from '../../act/plan.ts';
import { actReport } from '../../act/report.ts';
import { actorOf } from '../actor.ts';
import { readableSteps } from '@svc/core/intelligence/generation/readable-locators';

/** An interactive call should not hold a browser (or the caller) for the 10 minutes a test may take. */
const ACT_TIMEOUT_MS = 120_000;

/**
 * POST /api/act (and /api/v1/act): browser actions performed once on a project's app, for
 * an assistant driving the app (svc_act). Steps and/or a plain-language instruction become
 * a one-off UI test run by the generation executor (the run graph's runner with the
 * project's environment and secrets; on AWS in the browser function), and the answer says
 * what each step did and where the browser ended up. Stateless: each call is a fresh
 * browser context — to continue, pass the answer's steps again (docs/act.md).
 */
export function actRoutes(app: Hono<ApiEnv>, deps: AppDeps, registry: RouteDef[]) {
  for (const path of ['/api/act', '/api/v1/act']) {
    mountRoute(app, deps, registry, {
      method: 'post', path, summary: 'Perform browser actions (steps or a plain-language instruction) on a project\'s app once, in a fresh browser: each step\'s outcome, the final URL, title and screenshot; optionally keep the steps as a test', tags: ['act'], auth: 'member', body: ActInput,
      responses: {
        200: { description: 'what happened (status passed or failed)', schema: ActResult },
        400: { description: 'invalid input, a URL outside the allowed hosts, or instruction lines that could not be read (the error names the field)' },
        404: { description: 'no such project in this organization' },
        409: { description: 'save_as_test was asked for but a step failed: nothing was saved (details.result is the outcome)' },
        501: { description: 'this deployment runs no browser, or the instruction needs a language model and none is configured (NO_MODEL)' },
      },
    }, async ({ c, body, access, principal }) => {
      const project = await deps.store.projects.get(access.organizationId, body.project_id);
      if (!project) throw notFound('project');
      const executor = deps.generation;
      if (!executor?.browser) throw new AppError('NOT_CONFIGURED', 'browser actions need a browser: this deployment has no browser function (SVC_BROWSER_FUNCTION_NAME, infra/browser.ts); or use the local runtime');
      const appUrl = project.app_url ?? undefined;
      const instruction = body.instruction === undefined ? undefined : await stepsFromInstruction({ text: body.instruction, llm: deps.llm, executor, organizationId: access.organizationId, projectId: project.id, baseUrl: appUrl });
      const plan = planActions({ url: body.url, appUrl, given: body.steps ?? [], fromInstruction: instruction?.steps ?? [], allow: (url, field) => checkHosts(project, serverHosts(deps), url, field) });
      c.set('audit', { action: 'browser.act', resource: `project:${project.id}`, metadata: { url: plan.startUrl, steps: plan.steps.length, instruction: body.instruction !== undefined, ...(body.save_as_test && { save_as_test: body.save_as_test.name }) } });

      // plan.steps: a goto to the start when none was given first, then the given steps, then the instruction's.
      const offset = plan.steps.length - (body.steps?.length ?? 0) - (instruction?.steps.length ?? 0);
      const test = oneOffTest({ name: body.save_as_test?.name ?? 'act', timeout_ms: ACT_TIMEOUT_MS, steps: plan.steps }, (i) => (i < offset ? 'url' : i - offset < (body.steps?.length ?? 0) ? `steps.${i - offset}` : { instructionStep: i - offset - (body.steps?.length ?? 0) }));
      const run = await executor.run(test, { organizationId: access.organizationId, projectId: project.id, ...(appUrl && { baseUrl: appUrl }), finalPage: { screenshot: body.screenshot } });
      const report = { ...actReport(plan.steps, plan.startUrl, run), ...(instruction && { instruction: instructionNotes(instruction) }) };
      let steps = report.steps;
      if (body.save_as_test && report.status === 'passed') {
        // The grammar's unions become the readable locators of the elements they matched, kept only when a second run with them passes.
        const readable = readableSteps(report.steps as Step[], run.fingerprints);
        // Readable locators built from the page (an id, a name) that the schema refuses are not kept: the grammar's steps are.
        const checked = readable.replaced ? TestDefinition.safeParse({ ...test, steps: readable.steps }) : undefined;
        if (checked?.success) {
          const again = await executor.run(checked.data, { organizationId: access.organizationId, projectId: project.id, ...(appUrl && { baseUrl: appUrl }) });
          if (again.status === 'passed') steps = readable.steps;
        }
      }
      const saved = body.save_as_test ? await saveAsTest(deps, c.get('requestId'), access.organizationId, actorOf(principal), project, body.save_as_test, { ...report, steps }) : null;
      if (saved) c.set('audit', { action: 'browser.act', resource: `project:${project.id}`, metadata: { url: plan.startUrl, steps: plan.steps.length, status: report.status, saved_test: saved.id } });
      return c.json({ ...report, saved_test: saved } satisfies ActResult);
    });
  }
}

/** The server's own allowed hosts (SVC_DISCOVERY_ALLOWED_HOSTS), which discovery and the audit carry too. */
const serverHosts = (deps: AppDeps): string[] => deps.discovery?.allowedHosts ?? deps.qualityAudit?.allowedHosts ?? [];

const instructionNotes = (i: InstructionSteps) => ({ understood: i.understood, ...(i.model !== undefined && { model: i.model }) });

/**
 * Only steps that all passed are kept: a test saved from a failed attempt would fail its
 * first run. That is a 409 carrying the outcome (without the screenshot), so the caller
 * sees why and nothing half-done is stored.
 */
async function saveAsTest(deps: AppDeps, requestId: string, orgId: string, changedBy: string, project: Project, save: NonNullable<ActBody['save_as_test']>, report: Omit<ActResult, 'saved_test'>) {
  if (report.status !== 'passed') {
    const { screenshot: _omitted, ...result } = report;
    throw new AppError('CONFLICT', `not saved as a test: the actions failed — ${report.error}`, { reason: 'actions_failed', result });
  }
  const input = TestCreateInput.parse({ project_id: project.id, name: save.name, type: 'ui', steps: report.steps, tags: save.tags ?? ['act'], ...(save.priority && { priority: save.priority }) });
  const test = await createTest(deps, orgId, requestId, input, changedBy);
  return { id: test.id, name: test.name };
}
