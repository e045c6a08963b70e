/**
 * Report documents over real HTTP on the local runtime: POST /api/reports/generate and
 * POST /api/reports/{id}/download print the run's report with the runtime's own Chromium;
 * the PDF is read back with PDF.js. Unknown and other organizations' runs, bad formats,
 * unfinished runs and a server without a printer each get their own answer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, signUp, type Client } from '../support/server.ts';
import { parsePdf } from '../support/pdf-text.ts';
import { startRunGraphServer } from '../run-graph/support/api-server.ts';
import { apiTest, startTarget, type Target } from '../run-graph/support/target.ts';

let server: Awaited<ReturnType<typeof startRunGraphServer>>;
let target: Target;
let api: Client;
let other: Client;
let user: Awaited<ReturnType<typeof signUp>>;
let projectId: string;
let runId: string;

beforeAll(async () => {
  target = await startTarget();
  server = await startRunGraphServer();
  user = await signUp(server.url, 'reports@example.com');
  api = client(server.url, { token: user.token, org: user.orgId });
  const stranger = await signUp(server.url, 'stranger@example.com');
  other = client(server.url, { token: stranger.token, org: stranger.orgId });
  projectId = (await api.post('/api/v1/projects', { name: 'shop', app_url: target.url })).body.id;
  const ids: string[] = [];
  for (const test of [
    { ...apiTest('orders answer', '/ok?id=p1'), description: undefined },
    { ...apiTest('payments answer', '/fail?id=p2'), description: undefined },
    { name: 'shop page looks right', type: 'ui', steps: [{ type: 'goto', url: '/page' }, { type: 'screenshot', label: 'shop' }] },
  ]) {
    const created = await api.post('/api/tests', { project_id: projectId, ...test });
    expect(created.status, created.text).toBe(201);
    ids.push(created.body.id);
  }
  const started = await api.post('/api/v1/test/run', { project_id: projectId, test_ids: ids });
  expect(started.status, started.text).toBe(201);
  runId = started.body.run.id;
  await until(runId, ['completed']);
});
afterAll(async () => {
  await server?.stop();
  await target?.stop();
});

async function until(id: string, statuses: string[], timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await api.get(`/api/v1/test/status/${id}`);
    if (statuses.includes(res.body.run.status)) return res.body;
    if (Date.now() > deadline) throw new Error(`run ${id} still ${res.body.run.status}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The raw response: a PDF is bytes, which the JSON client would read as text. */
async function download(path: string, body?: unknown, as: { token: string; orgId: string } = user) {
  const res = await fetch(server.url + path, {
    method: 'POST',
    headers: { authorization: `Bearer ${as.token}`, 'x-organization-id': as.orgId, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, bytes: new Uint8Array(await res.arrayBuffer()) };
}

describe('report documents', () => {
  it('POST /api/reports/generate returns the finished run as a PDF: its tests, the failure, the screenshot', async () => {
    const res = await download('/api/reports/generate', { run_id: runId, format: 'pdf' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="svc-report-${runId}.pdf"`);
    expect(Buffer.from(res.bytes.subarray(0, 5)).toString('latin1')).toBe('%PDF-');
    const pdf = await parsePdf(res.bytes);
    expect(pdf.pages).toBeGreaterThanOrEqual(1);
    for (const name of ['orders answer', 'payments answer', 'shop page looks right']) expect(pdf.text).toContain(name);
    const results = (await api.get(`/api/v1/tests/${runId}/results`)).body.items as Array<{ status: string; error_message: string | null }>;
    const failure = results.find((r) => r.status === 'failed')!.error_message!;
    expect(failure).toContain('500');
    expect(pdf.text).toContain(failure.slice(0, 60).replace(/\s+/g, ' ').trim());
    expect(pdf.text).toContain(`run ${runId}`);
    // The screenshot comes from the run's folder in the blob store, as in the HTML report.
    expect(pdf.images.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(1);
  });

  it('POST /api/reports/{id}/download does the same, PDF by default, and any other format on request', async () => {
    const pdf = await download(`/api/reports/${runId}/download`);
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
    expect((await parsePdf(pdf.bytes)).text).toContain('payments answer');

    const junit = await download(`/api/reports/${runId}/download`, { format: 'junit' });
    expect(junit.status).toBe(200);
    expect(junit.headers.get('content-type')).toMatch(/^application\/xml/);
    expect(junit.headers.get('content-disposition')).toBe(`attachment; filename="svc-junit-${runId}.xml"`);
    expect(Buffer.from(junit.bytes).toString()).toMatch(/failures="1"/);

    for (const format of ['markdown', 'md']) {
      const md = await download('/api/reports/generate', { run_id: runId, format });
      expect(md.status).toBe(200);
      expect(md.headers.get('content-disposition')).toBe(`attachment; filename="svc-report-${runId}.md"`);
      expect(Buffer.from(md.bytes).toString()).toContain('payments answer');
    }
    const html = await download('/api/reports/generate', { run_id: runId, format: 'html' });
    expect(html.headers.get('content-type')).toMatch(/^text\/html/);
    expect(Buffer.from(html.bytes).toString()).toContain('data:image/png;base64,');
  });

  it('a run that is unknown or another organization\'s answers 404 on both paths', async () => {
    for (const res of [
      await other.post('/api/reports/generate', { run_id: runId }),
      await other.post(`/api/reports/${runId}/download`, {}),
      await api.post('/api/reports/generate', { run_id: '01890000-0000-7000-8000-000000000000' }),
      await api.post('/api/reports/no-such-run/download', {}),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('NOT_FOUND');
    }
  });

  it('an invalid format or a missing run id is a 400 naming the field', async () => {
    const bad = await api.post('/api/reports/generate', { run_id: runId, format: 'docx' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.issues.map((i: { path: string }) => i.path)).toEqual(['format']);
    const download = await api.post(`/api/reports/${runId}/download`, { format: 'xlsx' });
    expect(download.status).toBe(400);
    expect(download.body.error.message).toContain('format');
    const missing = await api.post('/api/reports/generate', { format: 'pdf' });
    expect(missing.status).toBe(400);
    expect(missing.body.error.details.issues.map((i: { path: string }) => i.path)).toEqual(['run_id']);
  });

  it('a run that has not finished is a 409 that says so, while GET /api/reports still shows it so far', async () => {
    const id = (await api.post('/api/tests', { project_id: projectId, ...apiTest('waits for approval', '/ok?id=p3'), description: undefined })).body.id;
    // Plan approval parks the run before any test runs: it stays unfinished until someone answers.
    const started = await api.post('/api/v1/test/run', { project_id: projectId, test_ids: [id], require_test_plan_approval: true });
    const waiting = started.body.run.id as string;
    await until(waiting, ['awaiting_approval']);
    for (const res of [await api.post('/api/reports/generate', { run_id: waiting }), await api.post(`/api/reports/${waiting}/download`, { format: 'json' })]) {
      expect(res.status).toBe(409);
      expect(res.body.error).toMatchObject({ code: 'CONFLICT', details: { status: 'awaiting_approval' } });
      expect(res.body.error.message).toContain('has not finished (status awaiting_approval)');
    }
    expect((await api.get(`/api/reports/${waiting}`)).status).toBe(200);
    expect((await api.post(`/api/v1/approvals/${started.body.thread_id}/reject`, {})).status).toBe(200);
  });

  it('without a PDF printer (as on AWS today) pdf is a 501 NOT_CONFIGURED saying why; other formats still work', async () => {
    const printer = server.runtime.deps.reportPdf;
    server.runtime.deps.reportPdf = undefined;
    try {
      const res = await api.post('/api/reports/generate', { run_id: runId, format: 'pdf' });
      expect(res.status).toBe(501);
      expect(res.body.error.code).toBe('NOT_CONFIGURED');
      expect(res.body.error.message).toContain('needs a browser');
      expect((await api.post(`/api/reports/${runId}/download`, {})).status).toBe(501);
      expect((await download('/api/reports/generate', { run_id: runId, format: 'html' })).status).toBe(200);
    } finally {
      server.runtime.deps.reportPdf = printer;
    }
  });
});
