import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFixtureApp, type FixtureApp } from '../fixtures/app/server.ts';
import { runSvc } from './support/run-svc.ts';

/**
 * `svc run` with a quarantined test in the file, as a pipeline runs it: the test runs and
 * fails for real (the fixture app has no such path), the reports say it is quarantined, and
 * the command exits 0; without the quarantine the same file exits 1.
 */

let app: FixtureApp;
let out: string;
const failing = { name: 'legacy endpoint answers', type: 'api', steps: [{ type: 'request', method: 'GET', url: '/api/no-such-thing' }], assertions: [{ type: 'status', equals: 200 }] };
const passing = { name: 'items answer', type: 'api', steps: [{ type: 'request', method: 'GET', url: '/api/items' }], assertions: [{ type: 'status', equals: 200 }] };

beforeAll(async () => {
  app = await startFixtureApp();
  out = await mkdtemp(join(tmpdir(), 'svc-quarantine-'));
  await writeFile(join(out, 'quarantined.json'), JSON.stringify({ tests: [{ ...failing, quarantine: 'endpoint being removed' }, passing] }));
  await writeFile(join(out, 'plain.json'), JSON.stringify({ tests: [failing, passing] }));
});
afterAll(async () => {
  await app?.close();
  if (out) await rm(out, { recursive: true, force: true });
});

const svc = (args: string[]) => runSvc(args, { cwd: out });

describe('svc run with a quarantined test', () => {
  it('runs and reports its failure, and exits 0; the same file without the quarantine exits 1', async () => {
    const res = await svc(['run', '--url', app.url, '--tests', join(out, 'quarantined.json'), '--out', join(out, 'report'), '--reporter', 'json,junit']);
    expect(res.code, res.output).toBe(0);
    expect(res.output).toContain('1 failed (1 quarantined, not failing the run)');
    const json = JSON.parse(await readFile(join(out, 'report', 'report.json'), 'utf8')) as { run: Record<string, unknown>; tests: Array<{ name: string; status: string; quarantine?: string }> };
    expect(json.run).toMatchObject({ failed: 1, quarantined: 1 });
    expect(json.tests.find((t) => t.name === 'legacy endpoint answers')).toMatchObject({ status: 'failed', quarantine: 'endpoint being removed' });
    expect(await readFile(join(out, 'report', 'junit.xml'), 'utf8')).toContain('name="svc.quarantined" value="endpoint being removed"');

    const plain = await svc(['run', '--url', app.url, '--tests', join(out, 'plain.json'), '--out', join(out, 'report-2'), '--reporter', 'json']);
    expect(plain.code, plain.output).toBe(1);
  }, 180_000);

  it('an empty quarantine reason makes the test invalid, naming the field: it fails the run, not quarantined', async () => {
    await writeFile(join(out, 'bad.json'), JSON.stringify({ ...failing, quarantine: '' }));
    const bad = await svc(['run', '--url', app.url, '--tests', join(out, 'bad.json'), '--out', join(out, 'report-bad')]);
    expect(bad.code).toBe(1);
    expect(bad.output).toMatch(/bad\.json: quarantine: /);
  }, 60_000);
});
