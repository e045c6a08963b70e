import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFixtureApp, type FixtureApp } from '../fixtures/app/server.ts';
import { parsePdf } from '../support/pdf-text.ts';

/**
 * `svc run --reporter pdf` as a user runs it: the real binary against the fixture app in
 * real Chromium, and the PDF it writes read back by PDF.js (not by anything svc uses).
 */
const root = join(import.meta.dirname, '..', '..');
const bin = join(root, 'node_modules', '.bin', 'svc');
const suites = join(root, 'test', 'fixtures', 'suites');

let app: FixtureApp;
let out: string;

beforeAll(async () => {
  app = await startFixtureApp();
  out = await mkdtemp(join(tmpdir(), 'svc-pdf-'));
  const tests = join(out, 'tests');
  const { mkdir, copyFile } = await import('node:fs/promises');
  await mkdir(tests);
  // A UI test that signs in and keeps a screenshot, a UI test that fails on a locator, an API test.
  await copyFile(join(suites, 'pass', 'login.json'), join(tests, 'login.json'));
  await copyFile(join(suites, 'pass', 'items-api.json'), join(tests, 'items-api.json'));
  await writeFile(join(tests, 'broken.json'), JSON.stringify({
    name: 'press a button that is gone', type: 'ui', timeout_ms: 20000,
    steps: [{ type: 'goto', url: '/login' }, { type: 'click', selector: '#no-such-button', timeout_ms: 2000 }],
  }));
});

afterAll(async () => {
  await app?.close();
  if (out) await rm(out, { recursive: true, force: true });
});

const svc = (args: string[]) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(bin, args, { cwd: out, timeout: 240_000, env: { ...process.env, SVC_SECRET_DEMO_PASSWORD: 's3cret!', SVC_SECRET_API_TOKEN: 'fixture-token' } },
      (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr }));
  });

describe('svc run --reporter pdf', () => {
  it('writes report.pdf: every test by name, the failure with its error, the screenshot, the run id and page numbers on each page', async () => {
    const dir = join(out, 'report');
    const res = await svc(['run', '--url', app.url, '--tests', join(out, 'tests'), '--reporter', 'pdf,json', '--out', dir, '--state-dir', join(out, 'state')]);
    expect(res.code, res.stdout + res.stderr).toBe(1); // one test fails; the PDF was still written
    expect(res.stderr).not.toContain('report.pdf');
    const files = await readdir(dir);
    expect(files).toEqual(expect.arrayContaining(['report.pdf', 'report.json']));
    expect(files).not.toContain('report.html'); // only what --reporter asks for

    const json = JSON.parse(await readFile(join(dir, 'report.json'), 'utf8'));
    const runId: string = json.run.id;
    const bytes = await readFile(join(dir, 'report.pdf'));
    expect(bytes.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    const pdf = await parsePdf(bytes);
    expect(pdf.pages).toBeGreaterThanOrEqual(1);
    for (const name of ['sign in and see the dashboard', 'items API: create, read back, filter', 'press a button that is gone']) expect(pdf.text).toContain(name);
    // The failure is there with its kind and message, and the passed tests' steps too: every section prints open.
    const failed = json.tests.find((t: { name: string }) => t.name === 'press a button that is gone');
    expect(failed.error.message).toContain('#no-such-button');
    expect(pdf.text).toContain('#no-such-button');
    expect(pdf.text.toLowerCase()).toContain('locator');
    expect(pdf.text).toContain('click role=button[name="Sign in"]'); // a step of a passed test, inside its (otherwise collapsed) card
    // A locator failure is the test's, not svc's: it comes with no stack of svc's code (only internal errors do).
    expect(pdf.text).not.toContain('StepFailure');
    expect(pdf.text).not.toContain('s3cret!');
    // The dashboard screenshot is embedded as an image, not named as missing.
    expect(pdf.images.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(1);
    expect(pdf.text).not.toContain('Screenshot not embedded');
    // Each page's header names the run, its footer counts the pages.
    pdf.pageTexts.forEach((page, i) => {
      expect(page).toContain(`run ${runId}`);
      expect(page).toContain(`page ${i + 1} of ${pdf.pages}`);
    });
    // No filter buttons on paper.
    expect(pdf.text).not.toMatch(/All \d+ Failed \d+ Healed \d+/);
  }, 300_000);

  it('an unknown reporter is a usage error that lists pdf', async () => {
    const res = await svc(['run', '--url', app.url, '--tests', join(out, 'tests'), '--reporter', 'pdf,docx']);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('unknown reporter docx; use any of html,json,md,junit,pdf');
  });
});
