/**
 * The extract step through `svc run` as a user runs it: the real binary, the fixture app
 * in real Chromium, the model reached over the OpenAI wire format (a local double) through
 * SVC_LLM_*. A test reads the table by selectors and by the model, uses both results in
 * later steps, and report.json carries the values; without a model the model step fails
 * with NO_MODEL and the run exits 1.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFixtureApp, type FixtureApp } from '../fixtures/app/server.ts';
import { startWireDouble, type WireDouble } from '../llm/support/wire-double.ts';
import { openAiCompletion } from '../llm/support/formats.ts';

const root = join(import.meta.dirname, '..', '..');
const bin = join(root, 'node_modules', '.bin', 'svc');

let app: FixtureApp;
let llm: WireDouble;
let out: string;

beforeAll(async () => {
  app = await startFixtureApp();
  llm = await startWireDouble(() => ({ body: openAiCompletion(JSON.stringify({ cheapest: 'Bolt', price: 0.25 }), { prompt: 800, completion: 12 }, 'extract-model') }));
  out = await mkdtemp(join(tmpdir(), 'svc-extract-cli-'));
  await writeFile(join(out, 'extract.json'), JSON.stringify({
    name: 'products by extraction',
    type: 'ui',
    steps: [
      { type: 'goto', url: '/table' },
      { type: 'extract', save_as: 'table', fields: { names: { selector: 'td.name', all: true }, sort: { selector: '#price-header', attribute: 'aria-sort' } } },
      { type: 'extract', save_as: 'deal', instruction: 'the cheapest product and its price', schema: { type: 'object', required: ['cheapest', 'price'], properties: { cheapest: { type: 'string' }, price: { type: 'number' } } } },
      { type: 'fill', selector: { label: 'Filter' }, value: '{{deal.cheapest}}' },
      { type: 'assert', assertion: { type: 'text', selector: 'td.name', equals: '{{table.names.1}}' } },
    ],
  }));
});
afterAll(async () => {
  await app?.close();
  await llm?.close();
  if (out) await rm(out, { recursive: true, force: true });
});

function run(args: string[], env: Record<string, string> = {}) {
  return new Promise<{ code: number; output: string }>((resolve) => {
    execFile(bin, args, { cwd: out, timeout: 240_000, env: { ...process.env, ...env } }, (err, stdout, stderr) =>
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, output: stdout + stderr }));
  });
}

interface Report {
  tests: Array<{ status: string; error: { message: string } | null; steps: Array<{ type: string; status: string; extracted?: unknown }> }>;
}

describe('svc run with extract steps', () => {
  it('reads by selectors and by the model, later steps use both, and report.json carries the values', async () => {
    const models = { SVC_LLM_PROVIDERS: 'openai', SVC_OPENAI_BASE_URL: `${llm.url}/v1`, SVC_OPENAI_MODEL_CHEAP: 'extract-model', SVC_OPENAI_MODEL_MID: 'extract-model', SVC_OPENAI_MODEL_CAPABLE: 'extract-model' };
    const dir = join(out, 'with-model');
    const res = await run(['run', '--url', app.url, '--tests', join(out, 'extract.json'), '--out', dir, '--state-dir', join(out, 'state'), '--reporter', 'json'], models);
    expect(res.code, res.output).toBe(0);
    const report = JSON.parse(await readFile(join(dir, 'report.json'), 'utf8')) as Report;
    const steps = report.tests[0].steps;
    expect(steps.map((s) => s.status)).toEqual(['passed', 'passed', 'passed', 'passed', 'passed']);
    expect((steps[1].extracted as { names: string[] }).names.slice(0, 2)).toEqual(['Anchor', 'Bolt']);
    expect(steps[2].extracted).toEqual({ cheapest: 'Bolt', price: 0.25 });
    expect(llm.requests.length).toBe(1);
    expect(JSON.stringify(llm.requests[0].body.messages)).toContain('the cheapest product and its price');
  }, 240_000);

  it('without a model the model step fails with NO_MODEL and the run exits 1', async () => {
    const dir = join(out, 'without-model');
    const res = await run(['run', '--url', app.url, '--tests', join(out, 'extract.json'), '--out', dir, '--state-dir', join(out, 'state-2'), '--reporter', 'json'], { SVC_LLM_PROVIDERS: '', SVC_LLM_PROVIDER: '' });
    expect(res.code, res.output).toBe(1);
    const report = JSON.parse(await readFile(join(dir, 'report.json'), 'utf8')) as Report;
    expect(report.tests[0].steps.map((s) => s.status)).toEqual(['passed', 'passed', 'failed', 'skipped', 'skipped']);
    expect(report.tests[0].error!.message).toMatch(/NO_MODEL: extracting with an instruction needs a language model/);
  }, 240_000);
});
