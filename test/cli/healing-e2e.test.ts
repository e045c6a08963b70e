import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFixtureApp } from '../fixtures/app/server.ts';

/**
 * Self-healing end to end: tests written against v1 of the fixture app run once on v1
 * (recording fingerprints), then on v2, where ids, classes and texts changed and the
 * newsletter checkbox is gone. Heals are applied only at confidence ≥ 0.8 and only when
 * the step then passes; the removed element is not healed onto a neighbour. (Today some
 * renamed fields rank first but below 0.8, so not every v2 test passes as HEALED yet:
 * the calibration is fitted on a dev set without labels or accessible names.)
 */
const root = join(import.meta.dirname, '..', '..');
const bin = join(root, 'node_modules', '.bin', 'svc');
const tests = join(root, 'test', 'fixtures', 'suites', 'healing');
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-heal-e2e-'));
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

function svc(args: string[]) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(bin, args, { cwd: root, timeout: 240_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr }));
  });
}

async function runOn(version: 'v1' | 'v2', out: string, extra: string[] = []) {
  const app = await startFixtureApp({ version });
  try {
    const res = await svc(['run', '--url', app.url, '--tests', tests, '--out', join(dir, out), '--state-dir', join(dir, 'state'), '--reporter', 'json,md,html', ...extra]);
    const report = JSON.parse(await readFile(join(dir, out, 'report.json'), 'utf8'));
    return { res, report, byId: Object.fromEntries(report.tests.map((t: { id: string }) => [t.id, t])) as Record<string, any> };
  } finally {
    await app.close();
  }
}

describe('self-healing, v1 → v2', () => {
  it('passes on v1 and records fingerprints', async () => {
    const { res, report } = await runOn('v1', 'v1');
    expect(res.code, res.stdout).toBe(0);
    expect(report.run).toMatchObject({ total: 3, passed: 3 });
  }, 240_000);

  it('on v2, heals apply only at confidence ≥ 0.8 and are validated by re-running; the removed checkbox is not healed onto a neighbour', async () => {
    const { res, report, byId } = await runOn('v2', 'v2');
    expect(res.code).toBe(1);

    // #email was renamed to #user-email; the healed locator is the kept test id, and the
    // step passed with it (a heal is recorded only after its re-run passes).
    const login = byId['login-by-ids'];
    const email = login.healed_selectors.find((h: { original: string }) => h.original === '#email');
    expect(email).toMatchObject({ healed: 'test_id=login-email' });
    expect(email.confidence).toBeGreaterThanOrEqual(0.8);
    expect(login.steps[1]).toMatchObject({ status: 'passed' });

    // The renamed password field is the best candidate but below the threshold: it is
    // not applied, and the failure says why (SELF_HEAL_CONFIDENCE_THRESHOLD).
    expect(login.status).toBe('failed');
    expect(login.error.message).toMatch(/#password.*not healed: no confident replacement: best candidate <input#user-password> has confidence 0\.\d+ < 0\.8/);
    for (const t of report.tests) for (const h of t.healed_selectors) expect(h.confidence).toBeGreaterThanOrEqual(0.8);

    // The newsletter checkbox is gone in v2: nothing is close enough to be healed onto.
    const newsletter = byId['newsletter'];
    expect(newsletter.status).toBe('failed');
    expect(newsletter.error.kind).toBe('locator');
    expect(newsletter.error.message).toMatch(/#newsletter.*not healed/);
    expect(newsletter.healed_selectors).toEqual([]);

    const md = await readFile(join(dir, 'v2', 'report.md'), 'utf8');
    expect(md).toContain('login-email');
  }, 240_000);

  it('with --no-heal, the same run fails on the renamed elements', async () => {
    const { byId } = await runOn('v2', 'v2-no-heal', ['--no-heal']);
    expect(byId['login-by-ids'].status).toBe('failed');
    expect(byId['login-by-ids'].error.message).toContain('healing is disabled');
  }, 240_000);
});
