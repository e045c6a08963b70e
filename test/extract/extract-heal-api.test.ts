/**
 * `POST /api/heal` (and MCP `svc_heal`) addressing an extract step's field, over real HTTP
 * against the local server, with real Chromium on the fixture app's login page, v1 → v2
 * (`#login-submit` and `#email` renamed in v2, their test ids kept). A run on v1 records
 * each field's fingerprint in the table (`STEP#0001#FIELD#button`); on v2's page, captured
 * by Chromium, `{ step_index, field }` heals that field from its own fingerprint and says
 * where the fix goes (`steps.1.fields.button.selector`). A field that is not there, a step
 * that is not an extract step, a list field and a field without a step are 400s naming
 * `field`; another organization's test is a 404.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { EventEnvelope } from '@svc/core/contracts/events';
import type { Fingerprint } from '@svc/core/contracts/fingerprint';
import { createPlaywrightDriver, type PlaywrightDriver } from '../../packages/functions/src/execution/browser/playwright-driver.ts';
import { client, signUp, startTestServer, type Client, type TestServer } from '../support/server.ts';
import { startFixtureApp, type FixtureApp } from '../fixtures/app/server.ts';

let server: TestServer;
let v1: FixtureApp;
let v2: FixtureApp;
let driver: PlaywrightDriver;
let api: Client;
let agent: McpClient;
let testId: string;
/** v2's login page as Chromium sees it: the candidates a caller sends. */
let page: Fingerprint[];
const events: EventEnvelope[] = [];

const fields = {
  button: { selector: '#login-submit' },
  email_hint: { selector: '#email', attribute: 'placeholder' },
  inputs: { selector: '#login-form input', all: true },
};

beforeAll(async () => {
  [v1, v2] = await Promise.all([startFixtureApp({ version: 'v1' }), startFixtureApp({ version: 'v2' })]);
  server = await startTestServer({ runtime: { runGraph: { browser: () => createPlaywrightDriver({ locateTimeoutMs: 1500, assertTimeoutMs: 1500 }) } } });
  server.runtime.bus.subscribe((e) => void events.push(e));
  api = client(server.url, { token: server.admin.apiKey });
  const project = (await api.post('/api/v1/projects', { name: 'login', app_url: v1.url })).body.id as string;
  const created = await api.post('/api/tests', { project_id: project, name: 'read the login page', type: 'ui', steps: [{ type: 'goto', url: '/login' }, { type: 'extract', save_as: 'login', fields }, { type: 'click', selector: '#login-submit' }] });
  expect(created.status, created.text).toBe(201);
  testId = created.body.id;

  // v1: the test passes and each field's fingerprint is recorded (a list's is not).
  const started = await api.post('/api/v1/test/run', { project_id: project, test_ids: [testId] });
  expect(started.status, started.text).toBe(201);
  const deadline = Date.now() + 120_000;
  let status;
  do {
    await new Promise((r) => setTimeout(r, 150));
    status = (await api.get(`/api/v1/test/status/${started.body.thread_id}`)).body;
    if (Date.now() > deadline) throw new Error(`the v1 run is still ${status.run.status}`);
  } while (!['completed', 'failed', 'cancelled'].includes(status.run.status));
  expect(status.run.status).toBe('completed');
  expect(status.passed_count).toBe(1);

  driver = await createPlaywrightDriver({ locateTimeoutMs: 1500, assertTimeoutMs: 1500 });
  const s = await driver.openSession({ baseUrl: v2.url, trace: false });
  try {
    const ctx = { deadline: Date.now() + 15_000, signal: new AbortController().signal, log: () => {} };
    await s.perform({ type: 'goto', url: '/login' } as never, ctx as never);
    page = await s.pageFingerprints();
  } finally {
    await s.close();
  }

  agent = new McpClient({ name: 'svc-test-agent', version: '1.0.0' });
  await agent.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${server.admin.apiKey}` } } }));
}, 180_000);
afterAll(async () => {
  await agent?.close().catch(() => undefined);
  await driver?.close();
  await server?.stop();
  await Promise.all([v1?.close(), v2?.close()]);
});

describe('POST /api/heal with an extract step\'s field', () => {
  it('heals the field from its own recorded fingerprint and says where the fix goes', async () => {
    const res = await api.post('/api/heal', { test_id: testId, step_index: 1, field: 'button', candidates: page, url: `${v2.url}/login`, error_message: 'extract field "button": "#login-submit" matched 0 elements' });
    expect(res.status, res.text).toBe(202);
    expect(res.body).toMatchObject({ decision: 'heal', target: { step_index: 1, field: 'button', path: 'steps.1.fields.button.selector' } });
    expect(res.body.proposals[0]).toMatchObject({ healed_selector: 'test_id=login-submit', method: 'dom_similarity' });
    expect(res.body.proposals[0].confidence).toBeGreaterThanOrEqual(0.8);
    // The event names the field, and the selector is the field's, not a step's.
    expect(events.find((e) => e.event_id === res.body.event_id)).toMatchObject({ event_type: 'healing.requested', payload: { test_id: testId, step_index: 1, field: 'button', original_selector: '#login-submit' } });

    // Another field of the same step heals from its own fingerprint, to its own element.
    const hint = await api.post('/api/heal', { test_id: testId, step_index: 1, field: 'email_hint', candidates: page });
    expect(hint.body).toMatchObject({ decision: 'heal', target: { path: 'steps.1.fields.email_hint.selector' }, proposals: [expect.objectContaining({ healed_selector: 'test_id=login-email' })] });

    // A step's own locator keeps its path: the click after the extraction.
    const click = await api.post('/api/heal', { test_id: testId, step_index: 2, candidates: page });
    expect(click.body).toMatchObject({ decision: 'heal', target: { step_index: 2, field: null, path: 'steps.2.selector' }, proposals: [expect.objectContaining({ healed_selector: 'test_id=login-submit' })] });
  });

  it('refuses what cannot be a field\'s selector with a 400 naming field, and hides other organizations\' tests', async () => {
    const issue = async (body: Record<string, unknown>) => {
      const res = await api.post('/api/heal', { test_id: testId, ...body });
      expect(res.status, res.text).toBe(400);
      return res.body.error.details.issues[0];
    };
    expect(await issue({ field: 'button' })).toEqual({ path: 'field', message: 'needs step_index: the extract step whose field it is' });
    expect(await issue({ step_index: 1, field: 'total' })).toEqual({ path: 'field', message: 'step 2 has no field "total" (its fields: button, email_hint, inputs)' });
    expect(await issue({ step_index: 2, field: 'button' })).toEqual({ path: 'field', message: 'step 3 is a click step, not an extract step: only an extract step has fields' });
    expect(await issue({ step_index: 1, field: 'inputs' })).toEqual({ path: 'field', message: 'field "inputs" of step 2 is read with all: true (a list), which is not healed' });
    expect(await issue({ step_index: 1 })).toEqual({ path: 'field', message: 'step 2 is an extract step: name the field whose selector broke (button, email_hint, inputs)' });

    // An extraction by a model has no fields; an inline assertion's locator is under `assertion`.
    const project = (await api.get(`/api/tests/${testId}`)).body.project_id;
    const byModel = (await api.post('/api/tests', { project_id: project, name: 'read by a model', type: 'ui', steps: [{ type: 'goto', url: '/login' }, { type: 'extract', instruction: 'the heading', schema: { type: 'object' } }, { type: 'assert', assertion: { type: 'visible', selector: '#login-submit' } }] })).body.id;
    const modelField = await api.post('/api/heal', { test_id: byModel, step_index: 1, field: 'heading' });
    expect(modelField.status).toBe(400);
    expect(modelField.body.error.details.issues[0]).toEqual({ path: 'field', message: 'step 2 extracts with a model (instruction): it has no fields' });
    const assertion = await api.post('/api/heal', { test_id: byModel, step_index: 2 });
    expect(assertion.body).toMatchObject({ decision: 'queued', target: { step_index: 2, field: null, path: 'steps.2.assertion.selector' } });
    expect(events.find((e) => e.event_id === assertion.body.event_id)?.payload).toMatchObject({ original_selector: '#login-submit' });

    const stranger = await signUp(server.url, 'stranger-extract-heal@example.com');
    const other = await client(server.url, { token: stranger.token, org: stranger.orgId }).post('/api/heal', { test_id: testId, step_index: 1, field: 'button', candidates: page });
    expect(other.status).toBe(404);
  });

  it('svc_heal takes the field too', async () => {
    const healed = (await agent.callTool({ name: 'svc_heal', arguments: { test_id: testId, step_index: 1, field: 'button', candidates: page } })) as CallToolResult;
    expect(healed.isError).toBeFalsy();
    expect(healed.structuredContent).toMatchObject({ decision: 'heal', target: { field: 'button', path: 'steps.1.fields.button.selector' }, proposals: [expect.objectContaining({ healed_selector: 'test_id=login-submit' })] });
    const bad = (await agent.callTool({ name: 'svc_heal', arguments: { test_id: testId, step_index: 1, field: 'total' } })) as CallToolResult;
    expect(bad.isError).toBe(true);
    expect(bad.content.map((p) => (p.type === 'text' ? p.text : '')).join('\n')).toContain('field');
  });
});
