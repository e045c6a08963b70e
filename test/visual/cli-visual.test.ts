import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PNG } from 'pngjs';
import { startFixtureApp, type FixtureApp } from '../fixtures/app/server.ts';
import { startTarget } from '../run-graph/support/target.ts';

/**
 * `svc run` with a visual assertion, as a user runs it: the first run records the
 * baseline file, a changed page fails the run (exit 1) with the comparison in the JSON
 * report, `--update-baselines all` accepts the change, and a bad mode is a usage error.
 */
const root = join(import.meta.dirname, '..', '..');
const bin = join(root, 'node_modules', '.bin', 'svc');

let app: FixtureApp;
let dir: string;

beforeAll(async () => {
  app = await startFixtureApp();
  dir = await mkdtemp(join(tmpdir(), 'svc-cli-visual-'));
});
afterAll(async () => {
  await app?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

function svc(args: string[]) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(bin, args, { cwd: dir, timeout: 120_000 }, (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr }));
  });
}

const testFile = (box: string) => ({
  id: 'checkout-visual',
  name: 'Order summary looks right',
  type: 'ui',
  steps: [{ type: 'goto', url: `/visual?box=${box}` }],
  assertions: [{ type: 'visual', baseline: 'summary', selector: '#card' }],
});

async function runWith(box: string, extra: string[] = []) {
  const file = join(dir, 'visual.json');
  await writeFile(file, JSON.stringify(testFile(box)));
  const out = join(dir, `out-${box}-${extra.join('_').replace(/\W+/g, '_') || 'default'}`);
  const result = await svc(['run', '--url', app.url, '--tests', file, '--out', out, '--reporter', 'json,html', '--state-dir', join(dir, 'state'), ...extra]);
  const report = JSON.parse(await readFile(join(out, 'report.json'), 'utf8').catch(() => 'null'));
  const html = await readFile(join(out, 'report.html'), 'utf8').catch(() => '');
  return { ...result, report, html, out };
}

describe('svc run with visual assertions', () => {
  it('records, compares, fails on a change, and accepts it with --update-baselines all', async () => {
    const first = await runWith('blue');
    expect(first.code, first.stderr).toBe(0);
    const baselineFile = join(dir, 'svc-baselines', 'checkout-visual', 'summary.png');
    const png = PNG.sync.read(await readFile(baselineFile));
    expect(png.width).toBeGreaterThan(100);
    expect(first.report.tests[0].visual).toEqual([expect.objectContaining({ name: 'summary', status: 'created' })]);

    const changed = await runWith('red');
    expect(changed.code).toBe(1);
    const [outcome] = changed.report.tests[0].visual;
    expect(outcome).toMatchObject({ name: 'summary', status: 'differs', diff_pixels: 1600 });
    // The HTML report embeds all three images of the comparison.
    for (const caption of ['Baseline', 'Actual', 'Difference']) expect(changed.html).toMatch(new RegExp(`<img src="data:image/png;base64,[^"]+" alt="${caption}: [^"]+visual-summary-`));
    expect(await readdir(join(changed.out, 'artifacts'), { recursive: true })).toEqual(expect.arrayContaining(['checkout-visual/visual-summary-diff.png', 'checkout-visual/visual-summary-baseline.png', 'checkout-visual/visual-summary-actual.png']));

    const accepted = await runWith('red', ['--update-baselines', 'all']);
    expect(accepted.code, accepted.stderr).toBe(0);
    expect(accepted.report.tests[0].visual[0].status).toBe('updated');
    const strict = await runWith('red', ['--update-baselines', 'none']);
    expect(strict.code).toBe(0);
    expect(strict.report.tests[0].visual[0].status).toBe('matched');
  });

  it('a missing baseline fails under --update-baselines none, in its own --baselines folder', async () => {
    const r = await runWith('blue', ['--update-baselines', 'none', '--baselines', join(dir, 'empty-baselines')]);
    expect(r.code).toBe(1);
    expect(r.report.tests[0].error.message).toMatch(/there is no baseline yet/);
    await expect(readdir(join(dir, 'empty-baselines'))).rejects.toThrow(/ENOENT/);
  });

  it('a killed run resumed without --baselines compares with the folder it began with, not the default (found by QA: the rest passed, recorded as new baselines)', async () => {
    const target = await startTarget();
    try {
      const baselines = join(dir, 'kept-baselines');
      const state = join(dir, 'state-resume');
      const card = { type: 'visual', baseline: 'card', selector: '#card' };
      const suite = (box: string) => ({
        name: 'resumed visuals',
        tests: [
          { id: 'first', name: 'first', type: 'ui', steps: [{ type: 'goto', url: `/visual?box=${box}` }], assertions: [card] },
          // Held at the gate while the run is killed; the resumed run runs it again from its start.
          { id: 'second', name: 'second', type: 'ui', steps: [{ type: 'goto', url: `${target.url}/gate?id=v2` }, { type: 'goto', url: `/visual?box=${box}` }], assertions: [card] },
        ],
      });
      const file = join(dir, 'resumed.json');
      await writeFile(file, JSON.stringify(suite('blue')));
      const recorded = await svc(['run', '--url', app.url, '--tests', file, '--workers', '1', '--baselines', baselines, '--out', join(dir, 'out-recorded'), '--state-dir', state]);
      expect(recorded.code, recorded.stderr).toBe(0);

      // The page changed: both tests must fail against the recorded baselines.
      await writeFile(file, JSON.stringify(suite('red')));
      target.closeGate();
      const out = join(dir, 'out-resumed');
      const child = spawn(bin, ['run', '--url', app.url, '--tests', file, '--workers', '1', '--baselines', baselines, '--out', out, '--state-dir', state], { cwd: dir });
      let stdout = '';
      child.stdout.on('data', (d) => (stdout += d));
      const exited = new Promise<void>((r) => child.once('exit', () => r()));
      await expect.poll(() => target.hits('/gate?id=v2'), { timeout: 60_000 }).toBe(2);
      const runId = /^run (\S+) /m.exec(stdout)?.[1];
      child.kill('SIGKILL');
      await exited;
      target.openGate();

      const other = await svc(['run', '--resume', runId!, '--state-dir', state, '--baselines', join(dir, 'other-baselines')]);
      expect(other.code).toBe(2);
      expect(other.stderr).toContain(`--resume compares with the baselines the run began with (${baselines})`);
      const resumed = await svc(['run', '--resume', runId!, '--state-dir', state, '--reporter', 'json']);
      expect(resumed.code).toBe(1);
      const report = JSON.parse(await readFile(join(out, 'report.json'), 'utf8'));
      expect(report.tests.map((t: { id: string; status: string; visual: Array<{ status: string }> }) => [t.id, t.status, t.visual[0]?.status])).toEqual([['first', 'failed', 'differs'], ['second', 'failed', 'differs']]);
      // Nothing was recorded in the default folder.
      await expect(readdir(join(dir, 'svc-baselines', 'second'))).rejects.toMatchObject({ code: 'ENOENT' });
    } finally {
      await target.stop();
    }
  }, 180_000);

  it('rejects an unknown baseline mode, and a new one for a resumed run, as bad usage', async () => {
    const r = await svc(['run', '--url', app.url, '--tests', join(dir, 'visual.json'), '--update-baselines', 'sometimes']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--update-baselines must be one of missing, all, none/);
    const resumed = await svc(['run', '--resume', 'some-run', '--update-baselines', 'all']);
    expect(resumed.code).toBe(2);
    expect(resumed.stderr).toMatch(/--resume continues a run with the baseline mode it started with/);
  });
});
