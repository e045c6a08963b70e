import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QualityAuditReport } from '@svc/core/contracts/quality-audit';
import { startFixtureApp, type FixtureApp } from '../fixtures/app/server.ts';

/**
 * `svc audit` as a user runs it: the real command in a child process, its own Chromium,
 * the fixture app's pages. Exit code 0 when nothing is at or above --fail-on, 1 otherwise,
 * 2 for bad input or a page that cannot be loaded.
 */

const root = join(import.meta.dirname, '..', '..');
const bin = join(root, 'node_modules', '.bin', 'svc');
let app: FixtureApp;

beforeAll(async () => {
  app = await startFixtureApp();
});
afterAll(async () => app?.close());

function svc(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(bin, args, { cwd: root, env: { ...process.env, SVC_LOG_LEVEL: 'SILENT' }, timeout: 120_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

describe('svc audit', () => {
  it('exits 1 on the broken page and lists the findings, most severe first', async () => {
    const r = await svc(['audit', `${app.url}/a11y`]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toMatch(/^Audit of http:\/\/127\.0\.0\.1:\d+\/a11y \(HTTP 200\): FAILED — 12 finding\(s\): 3 critical, 1 high, 4 medium, 4 low, 0 info \(fails on high or worse\)\n/);
    expect(r.stdout).toContain('Accessibility score 10/100');
    expect(r.stdout).toMatch(/CRITICAL accessibility button-name: Buttons must have discernible text \[#icon-button\]/);
    expect(r.stdout).toMatch(/MEDIUM\s+security\s+cookie-not-httponly: Cookie fixture_pref is readable by scripts/);
  });

  it('exits 0 on the clean page, and prints the report as JSON with --json', async () => {
    const r = await svc(['audit', `${app.url}/a11y/clean`, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const report = QualityAuditReport.parse(JSON.parse(r.stdout));
    expect(report).toMatchObject({ passed: true, findings: [], accessibility: { score: 100 } });
  });

  it('--checks and --fail-on change the verdict', async () => {
    // Only the console check: a console error (medium) and a missing image (low) pass at high, fail at low.
    const atHigh = await svc(['audit', `${app.url}/a11y`, '--checks', 'console', '--json']);
    expect(atHigh.code).toBe(0);
    expect(JSON.parse(atHigh.stdout).checks).toEqual(['console']);
    const atLow = await svc(['audit', `${app.url}/a11y`, '--checks', 'console', '--fail-on', 'low']);
    expect(atLow.code).toBe(1);
  });

  it('exits 2 naming the option for bad input, and for a page that cannot be loaded', async () => {
    const badCheck = await svc(['audit', `${app.url}/a11y`, '--checks', 'speed']);
    expect(badCheck.code).toBe(2);
    expect(badCheck.stderr).toMatch(/^svc audit: --checks: /);
    const badImpact = await svc(['audit', `${app.url}/a11y`, '--min-impact', 'severe']);
    expect([badImpact.code, badImpact.stderr.split('\n')[0]]).toEqual([2, expect.stringMatching(/^svc audit: --min-impact: /)]);
    const badUrl = await svc(['audit', 'not-a-url']);
    expect([badUrl.code, badUrl.stderr.split('\n')[0]]).toEqual([2, expect.stringMatching(/^svc audit: <url>: /)]);
    const none = await svc(['audit']);
    expect(none.code).toBe(2);
    const closed = await svc(['audit', 'http://127.0.0.1:1/']);
    expect(closed.code).toBe(2);
    expect(closed.stderr).toMatch(/^svc audit: could not load http:\/\/127\.0\.0\.1:1\/: net::ERR_[A-Z_]+/);
  });
});
