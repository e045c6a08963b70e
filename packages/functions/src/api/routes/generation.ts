import { z } from 'zod';
import type { Context, Hono } from 'hono';
import { parseJsonBody } from '@svc/core/contracts/json-body';
import { AppError, notFound } from '@svc/core/errors';
import { parseInput } from '@svc/core/contracts/parse';
import { TestDefinition } from '@svc/core/contracts/steps';
import { ListQuery } from '@svc/core/contracts/common';
import { CreateFromStoryInput, CreateFromTextInput, ConvertRecordingInput, FromEventInput, GenerateBatchInput, GenerateInput, ReviewInput } from '@svc/core/intelligence/generation/contracts';
import { parsePlainLanguage, toTestDefinition, type PlainLanguageResult } from '@svc/core/intelligence/generation/plain-language';
import { convertRecording, MAX_RECORDING_BYTES, RecordingError } from '@svc/core/intelligence/generation/recording/index';
import { generateFromFlow, generateFromSpec, FlowInput } from '@svc/core/intelligence/generation/suite';
import { reviewTest } from '@svc/core/intelligence/generation/review';
import type { GenerationSource } from '@svc/core/store/generated-tests';
import type { AppDeps } from '../deps.ts';
import type { ApiEnv } from '../env.ts';
import { mountRoute, type RouteDef } from '../route.ts';
import { checkedTest, finishGeneration } from '../../generation/finish.ts';
import { generateFromFailureEvent } from '../../generation/from-event.ts';
import { assistWithModel, repairWithModelAfterFailure } from '../../generation/model-assist.ts';
import { NO_MODEL_HINT, rejectUnparsed } from '../../generation/reject-unparsed.ts';
import type { ExecutionReport } from '../../generation/finish.ts';

const GeneratedListQuery = ListQuery.extend({ project_id: z.uuid().describe('Project whose generated tests to list') });

const GenerationResponse = z.object({
  generated_test: z.record(z.string(), z.unknown()).describe('The generated_tests record: code (the test JSON), confidence_score, execution_status, test_id'),
  test: z.record(z.string(), z.unknown()).describe('The generated test in the product format'),
  execution: z.record(z.string(), z.unknown()).describe('The one execution: status passed | failed | not_executed, error, steps; parameter_set names the first failing set of a parameterised test'),
  created_test: z.record(z.string(), z.unknown()).nullable().describe('The test saved in tests (only when the execution passed)'),
  warnings: z.array(z.object({ rule: z.string(), message: z.string() })).describe('Why a pass of the test proves little (no-assertions: it checks nothing); its confidence_score is then low'),
});

/**
 * Test generation: plain language and stories, recordings, production failure events,
 * specs and discovered flows, plus a review of any test — all without a model; with one,
 * plain language and stories also take free-form lines (generation/model-assist.ts). Every generated
 * test is executed once (finishGeneration) and saved to tests only when it passed.
 */
export function generationRoutes(app: Hono<ApiEnv>, deps: AppDeps, registry: RouteDef[]) {
  const { store } = deps;

  const project = async (orgId: string, projectId: string) => {
    const p = await store.projects.get(orgId, projectId);
    if (!p) throw notFound('project');
    return p;
  };

  const finish = async (c: Context<ApiEnv>, orgId: string, p: { id: string; app_url: string | null }, body: { base_url?: string; execute: boolean }, source: GenerationSource, test: TestDefinition, confidence: number, judge?: Parameters<typeof finishGeneration>[0]['judge'], batch?: string, retry?: Parameters<typeof finishGeneration>[0]['retry']) => {
    return finishGeneration({ store, publisher: deps.publisher, executor: deps.generation, organizationId: orgId, projectId: p.id, appUrl: p.app_url, baseUrl: body.base_url, execute: body.execute, source, test: checkedTest(test), generatorConfidence: confidence, requestId: c.get('requestId'), judge, batch, retry });
  };

  const fromText = async (c: Context<ApiEnv>, orgId: string, body: { project_id: string; name?: string; base_url?: string; execute: boolean; allow_partial: boolean }, text: string, field: string, source: GenerationSource) => {
    const p = await project(orgId, body.project_id);
    const grammar = parsePlainLanguage(text);
    // With a model, lines the grammar left are rewritten into grammar sentences (one browser for the page listing and the run).
    const withModel = deps.llm?.configured === true;
    const assist = grammar.not_understood.length > 0 && withModel;
    const baseUrl = body.base_url ?? p.app_url ?? undefined;
    // One browser for the page listings, the run and a corrected run.
    const batch = withModel && deps.generation?.browser ? deps.generation.batch() : undefined;
    try {
      const assisted = assist ? await assistWithModel({ llm: deps.llm, executor: deps.generation, parsed: grammar, organizationId: orgId, projectId: p.id, baseUrl, batch }) : { result: grammar };
      let parsed = assisted.result;
      const modelNotes = { model: assisted.model ?? null, ...(assisted.model_error && { model_error: assisted.model_error }), ...(assisted.page && { page_context: assisted.page }) };
      rejectUnparsed(parsed, field, body.allow_partial, assist ? modelNotes : undefined, withModel ? undefined : NO_MODEL_HINT);
      const definition = () => toTestDefinition(parsed, { name: body.name, ...(parsed.understood.some((u) => u.source === 'model') && { tags: ['generated', 'model-assisted'] }) });
      let test = definition();
      // The ambiguous case: a step that did not find exactly one element gets its line rewritten by the model, and the corrected test runs once.
      let repair: Record<string, unknown> | undefined;
      const retry = withModel
        ? async (failed: ExecutionReport) => {
            if (failed.failure_kind !== 'locator' || failed.failed_step === undefined) return undefined;
            const r = await repairWithModelAfterFailure({ llm: deps.llm, executor: deps.generation, parsed, organizationId: orgId, projectId: p.id, baseUrl, batch, failure: { step: failed.failed_step, error: failed.error ?? 'the step failed' } });
            if (r.line === undefined) return undefined;
            repair = { line: r.line, model: r.model ?? null, ...(r.model_error && { model_error: r.model_error }), ...(r.page && { page_context: r.page }) };
            if (r.result === parsed) return undefined;
            parsed = r.result;
            test = definition();
            return { test, generatorConfidence: parsed.confidence };
          }
        : undefined;
      const done = await finish(c, orgId, p, body, source, test, parsed.confidence, undefined, batch, retry);
      const fromModel = parsed.understood.some((u) => u.source === 'model');
      c.set('audit', { action: 'test.generate', resource: `generated_test:${done.generated_test.id}`, metadata: { source, project_id: p.id, execution: done.execution.status, ...(fromModel && { model_assisted: true }) } });
      const understood = parsed.understood.map(({ line, text: t, patterns, certainty, source: from, rewrite }) => ({ line, text: t, patterns, certainty, source: from ?? 'grammar', ...(rewrite && { rewrite }) }));
      return c.json({ ...done, test, understood, not_understood: parsed.not_understood, ...(assist && modelNotes), ...(repair && { repair }) }, 201);
    } finally {
      if (batch) await deps.generation!.release(batch);
    }
  };

  mountRoute(app, deps, registry, {
    method: 'post', path: '/api/nlp/create-test', summary: 'Plain language → a test by the grammar (with a model configured, free-form lines are rewritten into grammar sentences); executed once, saved when it passes', tags: ['generation'], auth: 'member', body: CreateFromTextInput,
    responses: { 201: { description: 'generated', schema: GenerationResponse }, 400: { description: 'lines the grammar does not understand (details.not_understood)' }, 404: { description: 'no such project in this organization' } },
  }, async ({ c, body, access }) => fromText(c, access.organizationId, body, body.text, 'text', 'plain-language'));

  mountRoute(app, deps, registry, {
    method: 'post', path: '/api/nlp/create-from-story', summary: 'A user story (Given/When/Then) → a test; "As a … I want … so that …" becomes the description', tags: ['generation'], auth: 'member', body: CreateFromStoryInput,
    responses: { 201: { description: 'generated', schema: GenerationResponse }, 400: { description: 'lines the grammar does not understand' }, 404: { description: 'no such project' } },
  }, async ({ c, body, access }) => fromText(c, access.organizationId, body, (body.story ?? body.text)!, body.story !== undefined ? 'story' : 'text', 'story'));

  // Recordings may come as JSON or as a multipart file upload, so this route reads its own body.
  mountRoute(app, deps, registry, {
    method: 'post', path: '/api/recording/convert', summary: `Chrome DevTools Recorder JSON or a Playwright codegen script → a test (JSON body { project_id, recording, format? } or multipart with a "file" part; at most ${MAX_RECORDING_BYTES / 1024 / 1024} MB)`, tags: ['generation'], auth: 'member',
    body: ConvertRecordingInput, readsOwnBody: true,
    responses: { 201: { description: 'converted', schema: GenerationResponse }, 400: { description: 'unknown recording format or nothing convertible' }, 413: { description: 'recording larger than 50 MB' } },
  }, async ({ c, access }) => {
    const body = parseInput(ConvertRecordingInput, await readRecordingBody(c), 'body');
    const p = await project(access.organizationId, body.project_id);
    let converted;
    try {
      converted = await convertRecording(body.recording, { format: body.format, name: body.name });
    } catch (err) {
      if (err instanceof RecordingError) throw new AppError('VALIDATION_FAILED', `Invalid request: ${err.field}: ${err.message}`, { issues: [{ path: err.field, message: err.message }] });
      throw err;
    }
    const done = await finish(c, access.organizationId, p, body, 'recording', converted.test, converted.confidence);
    c.set('audit', { action: 'test.generate', resource: `generated_test:${done.generated_test.id}`, metadata: { source: 'recording', format: converted.format, project_id: p.id } });
    return c.json({ ...done, test: converted.test, format: converted.format, skipped: converted.skipped }, 201);
  });

  mountRoute(app, deps, registry, {
    method: 'post', path: '/api/test/from-event', summary: 'A production failure event (message, stack, url, breadcrumbs) → a regression test that replays it', tags: ['generation'], auth: 'member', body: FromEventInput,
    responses: { 201: { description: 'generated', schema: GenerationResponse }, 404: { description: 'no such project' } },
  }, async ({ c, body, access }) => {
    const p = await project(access.organizationId, body.project_id);
    const done = await generateFromFailureEvent({ store, publisher: deps.publisher, executor: deps.generation, organizationId: access.organizationId, requestId: c.get('requestId'), project: p, input: body });
    c.set('audit', { action: 'test.generate', resource: `generated_test:${done.generated_test.id}`, metadata: { source: 'event', project_id: p.id } });
    return c.json(done, 201);
  });

  mountRoute(app, deps, registry, {
    method: 'post', path: '/api/generate', summary: 'A test from a spec (page URL + intent in plain language, or "smoke") or from one discovered flow', tags: ['generation'], auth: 'member', body: GenerateInput,
    responses: { 201: { description: 'generated', schema: GenerationResponse }, 400: { description: 'intent lines not understood' }, 404: { description: 'no such project' } },
  }, async ({ c, body, access }) => {
    const p = await project(access.organizationId, body.project_id);
    const gen = body.flow ? generateFromFlow(body.flow) : generateFromSpec({ url: body.url!, intent: body.intent, name: body.name, appOrigins: [p.app_url, body.base_url] });
    // This route reads the intent by the grammar alone; POST /api/nlp/create-test also asks a model, when one is configured.
    if (gen.parse?.not_understood.length) rejectUnparsed({ ...gen.parse } as PlainLanguageResult, 'intent', false, undefined, `The intent is read by svc's sentence grammar, one action per line; free-form lines: POST /api/nlp/create-test rewrites them with a language model${deps.llm?.configured ? '' : ' (none is configured: SVC_LLM_PROVIDERS)'}`);
    if (body.name) gen.test.name = body.name;
    const done = await finish(c, access.organizationId, p, body, body.flow ? 'flow' : 'spec', gen.test, gen.confidence);
    return c.json({ ...done, test: gen.test, review: gen.review }, 201);
  });

  mountRoute(app, deps, registry, {
    method: 'post', path: '/api/generate/batch', summary: 'Tests from discovered flows (given inline or by discovery session); each executed once', tags: ['generation'], auth: 'member', body: GenerateBatchInput,
    responses: { 201: { description: 'one result per flow', schema: z.object({ results: z.array(z.record(z.string(), z.unknown())), passed: z.number(), failed: z.number(), not_executed: z.number(), skipped: z.array(z.record(z.string(), z.unknown())) }) }, 404: { description: 'no such project or discovery session' } },
  }, async ({ c, body, access }) => {
    const p = await project(access.organizationId, body.project_id);
    const skipped: Array<{ flow: string; reason: string }> = [];
    let flows = body.flows ?? [];
    if (body.discovery_session_id) {
      const session = await store.discovery.getSession(access.organizationId, body.discovery_session_id);
      if (!session || session.project_id !== p.id) throw notFound('discovery session');
      flows = [];
      for (const f of (await store.discovery.listFlows(access.organizationId, body.discovery_session_id)).slice(0, 50)) {
        const parsed = FlowInput.safeParse({ name: f.name, flow_type: f.flow_type, steps: f.steps });
        if (parsed.success) flows.push(parsed.data);
        else skipped.push({ flow: f.name, reason: `steps are not in the product format: ${parsed.error.issues[0]?.message ?? 'invalid'}` });
      }
    }
    const results: Array<Record<string, unknown> & { execution: { status: string } }> = [];
    // One browser for the whole batch, closed when it is done.
    const batch = deps.generation?.batch();
    try {
      for (const flow of flows) {
        const gen = generateFromFlow(flow);
        const done = await finish(c, access.organizationId, p, body, 'flow', gen.test, gen.confidence, undefined, batch);
        results.push({ flow: flow.name, ...done, test: gen.test, review: gen.review });
      }
    } finally {
      if (batch) await deps.generation!.release(batch);
    }
    const count = (s: string) => results.filter((r) => r.execution.status === s).length;
    return c.json({ results, passed: count('passed'), failed: count('failed'), not_executed: count('not_executed'), skipped }, 201);
  });

  mountRoute(app, deps, registry, {
    method: 'get', path: '/api/generated-tests', summary: 'Generated tests of a project (generated_tests), newest first', tags: ['generation'], auth: 'viewer', query: GeneratedListQuery,
    responses: { 200: { description: 'generated tests', schema: z.object({ items: z.array(z.record(z.string(), z.unknown())), next_cursor: z.string().nullable() }) }, 404: { description: 'no such project' } },
  }, async ({ c, query, access }) => {
    await project(access.organizationId, query.project_id);
    return c.json(await store.generatedTests.listByProject(query.project_id, query.limit, query.cursor));
  });

  mountRoute(app, deps, registry, {
    method: 'get', path: '/api/generated-tests/:id', summary: 'A generated test with its code and confidence', tags: ['generation'], auth: 'viewer', params: z.strictObject({ id: z.uuid().describe('Generated test id') }),
    responses: { 200: { description: 'generated test', schema: z.record(z.string(), z.unknown()) }, 404: { description: 'no such generated test in this organization' } },
  }, async ({ c, params, access }) => {
    const g = await store.generatedTests.get(access.organizationId, params.id);
    if (!g) throw notFound('generated test');
    return c.json(g);
  });

  mountRoute(app, deps, registry, {
    method: 'post', path: '/api/test/review', summary: 'Quality findings on a test: brittle selectors, no assertions, fixed waits, hard-coded credentials, missing waits, duplicates', tags: ['generation'], auth: 'viewer', body: ReviewInput,
    responses: { 200: { description: 'findings with severity and a suggested fix', schema: z.object({ score: z.number(), findings: z.array(z.record(z.string(), z.unknown())) }) }, 404: { description: 'no such test' } },
  }, async ({ c, body, access }) => {
    let target = body.test;
    if (body.test_id) {
      const t = await store.tests.get(access.organizationId, body.test_id);
      if (!t) throw notFound('test');
      target = { type: t.type, steps: t.steps, assertions: t.assertions };
    }
    return c.json(reviewTest(target!));
  });
}

/** JSON { project_id, recording, … } or multipart (file + fields); either way at most 50 MB of recording. */
async function readRecordingBody(c: Context<ApiEnv>): Promise<unknown> {
  const declared = Number(c.req.header('content-length') ?? NaN);
  const tooBig = () => new AppError('PAYLOAD_TOO_LARGE', `recording exceeds the ${MAX_RECORDING_BYTES / 1024 / 1024} MB upload limit`);
  if (declared > MAX_RECORDING_BYTES + 64 * 1024) throw tooBig();
  const type = c.req.header('content-type') ?? '';
  if (/^multipart\/form-data/i.test(type)) {
    const form = await c.req.parseBody();
    const file = form.file ?? form.recording;
    let recording: string | undefined;
    if (file instanceof File) {
      if (file.size > MAX_RECORDING_BYTES) throw tooBig();
      recording = await file.text();
    } else if (typeof file === 'string') recording = file;
    if (recording !== undefined && Buffer.byteLength(recording) > MAX_RECORDING_BYTES) throw tooBig();
    const out: Record<string, unknown> = { recording };
    for (const k of ['project_id', 'format', 'name', 'base_url'] as const) if (typeof form[k] === 'string') out[k] = form[k];
    // "true"/"false" as a form sends them; anything else is left to the schema, which names execute ("no" and "0" ran the test; found by QA).
    if (typeof form.execute === 'string') {
      const v = form.execute.trim().toLowerCase();
      out.execute = v === 'true' ? true : v === 'false' ? false : form.execute;
    }
    return out;
  }
  if (!/^application\/([\w.+-]*\+)?json\b/i.test(type)) throw new AppError('UNSUPPORTED_MEDIA_TYPE', `expected Content-Type application/json or multipart/form-data, got ${type || 'none'}`);
  const text = await c.req.text();
  if (Buffer.byteLength(text) > MAX_RECORDING_BYTES + 64 * 1024) throw tooBig();
  return text.trim() ? parseJsonBody(text) : {};
}
