/**
 * `svc run --tests <folder>` does not read its own output as tests (found by QA): with the
 * reports folder (--out, default ./svc-report) or --state-dir inside the tests folder —
 * `svc run --tests .`, the second time — the previous run's report.json and the state
 * folder's JSON files were loaded as test files, reported as invalid tests, and failed a
 * run whose every test passed. The real binary, the fixture app, real HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFixtureApp, type FixtureApp } from '../fixtures/app/server.ts';
import { runSvc } from './support/run-svc.ts';

let app: FixtureApp;
let dir: string;

beforeAll(async () => {
  app = await startFixtureApp();
  dir = await mkdtemp(join(tmpdir(), 'svc-own-output-'));
  await writeFile(join(dir, 'items.json'), JSON.stringify({ name: 'items list', type: 'api', steps: [{ type: 'request', url: '/api/items' }], assertions: [{ type: 'status', equals: 200 }] }));
});

afterAll(async () => {
  await app?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('svc run --tests . with its reports and state inside the folder', () => {
  it('runs the same tests every time, not its previous reports or state', async () => {
    const args = ['run', '--url', app.url, '--tests', '.', '--state-dir', 'state'];
    for (const attempt of [1, 2]) {
      const r = await runSvc(args, { cwd: dir, timeoutMs: 120_000 });
      expect(r.code, `run ${attempt}: ${r.output}`).toBe(0);
      expect(r.stdout, `run ${attempt}`).toContain('1/1 passed');
      const report = JSON.parse(await readFile(join(dir, 'svc-report', 'report.json'), 'utf8'));
      expect(report.tests.map((t: { name: string }) => t.name)).toEqual(['items list']);
    }
    // An --out of another name inside the folder is left out too.
    await rm(join(dir, 'svc-report'), { recursive: true, force: true });
    const r = await runSvc([...args, '--out', 'reports'], { cwd: dir, timeoutMs: 120_000 });
    expect(r.code, r.output).toBe(0);
    const again = await runSvc([...args, '--out', 'reports'], { cwd: dir, timeoutMs: 120_000 });
    expect(again.code, again.output).toBe(0);
    expect(again.stdout).toContain('1/1 passed');
  }, 300_000);
});
