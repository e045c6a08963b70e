/**
 * The extract step in the runner, in real Chromium on the fixture app: fields read by
 * selectors from the products table (one value, a list with all: true, an attribute), a
 * missing element failing the step by the field's name, save_as read by a later step as
 * {{name.field}}, and the model path — the page's text snapshot sent over the OpenAI wire
 * format to a local double whose JSON answer is validated against the schema (a valid
 * answer passes, one that breaks the schema fails with the validation error) — and
 * NO_MODEL without a model. The JSON and HTML reports carry the extracted value.
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TestDefinition } from '../../packages/core/src/contracts/steps.ts';
import { runTest, type TestRunDeps } from '../../packages/core/src/execution/run-test.ts';
import { httpExchange } from '../../packages/core/src/execution/api/http-exchange.ts';
import { renderJsonReport } from '../../packages/core/src/reporting/json-report.ts';
import { renderHtmlReport } from '../../packages/core/src/reporting/html-report.ts';
import { renderMarkdownReport } from '../../packages/core/src/reporting/markdown-report.ts';
import { createPlaywrightDriver, type PlaywrightDriver } from '../../packages/functions/src/execution/browser/playwright-driver.ts';
import { FsArtifacts } from '../../packages/functions/src/execution/fs-artifacts.ts';
import { cliModels, type CliModels } from '../../packages/functions/src/llm/cli-models.ts';
import { startFixtureApp, type FixtureApp } from '../fixtures/app/server.ts';
import { startWireDouble, type WireDouble } from '../llm/support/wire-double.ts';
import { openAiCompletion } from '../llm/support/formats.ts';

let app: FixtureApp;
let driver: PlaywrightDriver;
let dir: string;
let llm: WireDouble;
let models: CliModels;

beforeAll(async () => {
  app = await startFixtureApp();
  driver = await createPlaywrightDriver({ executablePath: process.env.SVC_CHROMIUM_PATH, locateTimeoutMs: 2_000, assertTimeoutMs: 2_000 });
  dir = await mkdtemp(join(tmpdir(), 'svc-extract-'));
  llm = await startWireDouble(() => ({ status: 500, body: { error: { message: 'no scripted answer' } } }));
  const env = { SVC_LLM_PROVIDERS: 'openai', SVC_OPENAI_BASE_URL: `${llm.url}/v1`, SVC_OPENAI_MODEL_CHEAP: 'extract-model', SVC_OPENAI_MODEL_MID: 'extract-model', SVC_OPENAI_MODEL_CAPABLE: 'extract-model' };
  models = (await cliModels(env, dir))!;
});
afterAll(async () => {
  await driver?.close();
  await app?.close();
  await llm?.close();
  await models?.close();
  await rm(dir, { recursive: true, force: true });
});

const test = (steps: unknown[]) => TestDefinition.parse({ name: 'extract', type: 'ui', timeout_ms: 30_000, steps: [{ type: 'goto', url: '/table' }, ...steps] });
const run = (steps: unknown[], extra: Partial<TestRunDeps> = {}) =>
  runTest('extract', test(steps), { ui: async () => driver, http: httpExchange, artifacts: new FsArtifacts(dir), baseUrl: app.url, environment: {}, secrets: {}, traceOnFailure: false, ...extra });

const schema = {
  type: 'object',
  properties: { cheapest: { type: 'string' }, price: { type: 'number' }, count: { type: 'integer' } },
  required: ['cheapest', 'price', 'count'],
  additionalProperties: false,
};

describe('the extract step, by selectors', () => {
  it('reads a value, a list with all: true and attributes, and keeps it in the step result and the reports', async () => {
    const r = await run([
      {
        type: 'extract',
        fields: {
          first: { selector: '#products tbody tr:first-child td.name' },
          names: { selector: { test_id: 'product-row' }, all: true },
          prices: { selector: '#products td.price', all: true },
          sort: { selector: '#price-header', attribute: 'aria-sort' },
          links: { selector: 'nav a', attribute: 'href', all: true },
          missing_attribute: { selector: '#filter', attribute: 'data-nothing' },
        },
      },
    ]);
    expect(r.error_message ?? '').toBe('');
    const value = r.steps[1].extracted as Record<string, unknown>;
    expect(value.first).toBe('Anchor');
    expect(value.names).toHaveLength(10);
    expect((value.names as string[])[1]).toBe('Bolt\tHardware\t0.25');
    expect((value.prices as string[]).slice(0, 3)).toEqual(['12.50', '0.25', '7.99']);
    expect(value.sort).toBe('none');
    expect((value.links as string[]).slice(0, 3)).toEqual(['/', '/login', '/dashboard']);
    expect(value.missing_attribute).toBeNull();
    expect(r.steps[1].description).toBe('extract first, names, prices, sort, links, missing_attribute');

    const summary = { run_id: 'r1', name: 'extract', base_url: app.url, started_at: r.started_at, finished_at: r.finished_at, duration_ms: r.duration_ms, workers: 1, total: 1, passed: 1, failed: 0, skipped: 0, healed: 0, results: [r] };
    expect(JSON.parse(renderJsonReport(summary)).tests[0].steps[1].extracted).toEqual(value);
    expect(renderHtmlReport(summary)).toContain('&quot;first&quot;: &quot;Anchor&quot;');
  });

  it('fails the step naming the field whose element is missing, and skips the rest', async () => {
    const r = await run([
      { type: 'extract', fields: { first: { selector: 'td.name >> nth=0' }, price: { selector: '#no-such-price' } } },
      { type: 'click', selector: '#next' },
    ]);
    expect(r.status).toBe('failed');
    expect(r.failure_kind).toBe('locator');
    expect(r.error_message).toMatch(/^step 2 \(extract first, price\): extract field "price": "#no-such-price" matched 0 elements/);
    expect(r.steps.map((s) => s.status)).toEqual(['passed', 'failed', 'skipped']);
    const all = await run([{ type: 'extract', fields: { rows: { selector: '.no-rows', all: true } } }]);
    expect(all.error_message).toMatch(/extract field "rows": "\.no-rows" matched 0 elements/);
    const several = await run([{ type: 'extract', fields: { name: { selector: 'td.name' } } }]);
    expect(several.error_message).toMatch(/extract field "name": "td\.name" matched 10 elements/);
  });

  it('keeps a secret the page shows out of the step result, while a later step still gets the value', async () => {
    const r = await run([
      { type: 'fill', selector: { label: 'Filter' }, value: '{{secrets.FILTER}}' },
      { type: 'extract', save_as: 'seen', fields: { filter: { selector: { label: 'Filter' }, attribute: 'id' }, first: { selector: 'td.name' } } },
      { type: 'assert', assertion: { type: 'text', selector: 'td.name', equals: '{{seen.first}}' } },
    ], { secrets: { FILTER: 'Kettle' } });
    expect(r.error_message ?? '').toBe('');
    expect(r.steps[2].extracted).toEqual({ filter: 'filter', first: '***' });
  });

  it('masks what is kept of a field named like a credential, whatever it holds, while a later step still gets the value', async () => {
    const r = await run([
      { type: 'extract', save_as: 'seen', fields: { session_token: { selector: 'h1' }, apiKeys: { selector: 'td.price', all: true }, heading: { selector: 'h1' }, author: { selector: '#page-info' } } },
      { type: 'assert', assertion: { type: 'text', selector: 'h1', equals: '{{seen.session_token}}' } },
      { type: 'assert', assertion: { type: 'text', selector: 'td.price >> nth=1', equals: '{{seen.apiKeys.1}}' } },
    ]);
    expect(r.error_message ?? '').toBe('');
    // The shape stays (a list is a list of ***); names that only contain a word (author) are not masked.
    expect(r.steps[1].extracted).toEqual({ session_token: '***', apiKeys: Array(10).fill('***'), heading: 'Products', author: 'Page 1 of 2' });
  });

  it('keeps what was read when a later step fails: the step result, and the Markdown report\'s failure section', async () => {
    const r = await run([
      { type: 'extract', save_as: 'paging', fields: { info: { selector: '#page-info' }, password: { selector: 'h1' } } },
      { type: 'click', selector: '#no-such-button', timeout_ms: 1_000 },
    ]);
    expect(r.status).toBe('failed');
    expect(r.steps[1]).toMatchObject({ status: 'passed', save_as: 'paging', extracted: { info: 'Page 1 of 2', password: '***' } });
    const summary = { run_id: 'r2', name: 'extract', started_at: r.started_at, finished_at: r.finished_at, duration_ms: r.duration_ms, workers: 1, total: 1, passed: 0, failed: 1, skipped: 0, healed: 0, results: [r] };
    const md = renderMarkdownReport(summary);
    expect(md).toContain('<details><summary>Extracted (1 step)</summary>');
    expect(md).toContain('step 2 {{paging}}: {\n  "info": "Page 1 of 2",\n  "password": "***"\n}');
    expect(JSON.parse(renderJsonReport(summary)).tests[0].steps[1]).toMatchObject({ save_as: 'paging', extracted: { info: 'Page 1 of 2', password: '***' } });
  });

  it('save_as keeps the result for later steps: {{name.field}} and {{name.list.0}}', async () => {
    const r = await run([
      { type: 'extract', save_as: 'product', fields: { last: { selector: '#products tbody tr:last-child td.name' }, names: { selector: 'td.name', all: true } } },
      { type: 'fill', selector: { label: 'Filter' }, value: '{{product.last}}' },
      { type: 'assert', assertion: { type: 'count', selector: { test_id: 'product-row' }, equals: 1 } },
      { type: 'assert', assertion: { type: 'text', selector: 'td.name', equals: '{{product.names.9}}' } },
      { type: 'fill', selector: { label: 'Filter' }, value: '{{product.nope}}' },
    ]);
    expect(r.steps.slice(1, 5).map((s) => s.status)).toEqual(['passed', 'passed', 'passed', 'passed']);
    expect(r.steps[2].description).toContain('"Jack"');
    expect(r.steps[5].status).toBe('failed');
    expect(r.error_message).toMatch(/unknown variable \{\{product\.nope\}\}: "nope" is not a field of the saved value \(fields: last, names\)/);
  });

  it('rejects an invalid step by schema, naming the field', () => {
    const issues = (step: unknown) => {
      const res = TestDefinition.safeParse({ name: 'x', type: 'ui', steps: [step] });
      return res.success ? [] : res.error.issues.map((i) => i.path.join('.'));
    };
    expect(issues({ type: 'extract' })).toContain('steps.0.fields');
    expect(issues({ type: 'extract', fields: { a: { selector: 'h1' } }, instruction: 'the title', schema })).toContain('steps.0.fields');
    expect(issues({ type: 'extract', instruction: 'the title' })).toContain('steps.0.schema');
    expect(issues({ type: 'extract', instruction: 'the title', schema: { type: 'array' } })).toContain('steps.0.schema');
    expect(issues({ type: 'extract', fields: { a: {} } })).toContain('steps.0.fields.a.selector');
    expect(issues({ type: 'extract', fields: { a: { selector: 'h1' } }, save_as: 'secrets' })).toContain('steps.0.save_as');
  });
});

describe('the extract step, with a model', () => {
  const instruction = 'the cheapest product on this page, its price, and how many products are listed';

  it('sends the page\'s text snapshot over the OpenAI wire format and keeps the answer that matches the schema', async () => {
    const first = llm.requests.length;
    llm.script.push({ body: openAiCompletion(JSON.stringify({ cheapest: 'Bolt', price: 0.25, count: 10 }), { prompt: 900, completion: 20 }, 'extract-model') });
    const r = await run([
      { type: 'extract', instruction, schema, save_as: 'deal' },
      { type: 'fill', selector: { label: 'Filter' }, value: '{{deal.cheapest}}' },
      { type: 'assert', assertion: { type: 'text', selector: 'td.price', equals: '0.25' } },
    ], { extractModel: models.extract });
    expect(r.error_message ?? '').toBe('');
    expect(r.steps[1].extracted).toEqual({ cheapest: 'Bolt', price: 0.25, count: 10 });
    const sent = llm.requests[first]!;
    expect(sent.path).toBe('/v1/chat/completions');
    expect(sent.body.model).toBe('extract-model');
    expect(sent.body.response_format).toEqual({ type: 'json_object' });
    const prompt = sent.body.messages.map((m: { content: string }) => m.content).join('\n');
    expect(prompt).toContain(instruction);
    expect(prompt).toContain('"required":["cheapest","price","count"]');
    // The accessibility snapshot of the page: the table's rows with their cells' text.
    expect(prompt).toMatch(/row "Bolt Hardware 0\.25"/);
    expect(prompt).toContain('Products — Fixture Shop');
  });

  it('fails the step with the schema\'s errors when the answer does not match, and when it is not JSON', async () => {
    llm.script.push({ body: openAiCompletion(JSON.stringify({ cheapest: 'Bolt', price: '0.25' }), undefined, 'extract-model') });
    const r = await run([{ type: 'extract', instruction, schema }], { extractModel: models.extract });
    expect(r.status).toBe('failed');
    expect(r.failure_kind).toBe('assertion');
    expect(r.error_message).toMatch(/the model's answer does not match the schema: .*\/price must be number/);
    expect(r.error_message).toMatch(/must have required property 'count'/);
    expect(r.steps[1].extracted).toBeUndefined();

    llm.script.push({ body: openAiCompletion('The cheapest is Bolt.', undefined, 'extract-model') });
    const prose = await run([{ type: 'extract', instruction, schema }], { extractModel: models.extract });
    expect(prose.error_message).toMatch(/the model's answer is not JSON: "The cheapest is Bolt\."/);
  });

  it('fails with NO_MODEL when no model is configured, without asking anything', async () => {
    const before = llm.requests.length;
    const r = await run([{ type: 'extract', instruction, schema }]);
    expect(r.status).toBe('failed');
    expect(r.failure_kind).toBe('configuration');
    expect(r.error_message).toMatch(/NO_MODEL: extracting with an instruction needs a language model and none is configured \(SVC_LLM_PROVIDERS\)/);
    expect(llm.requests.length).toBe(before);
  });
});
