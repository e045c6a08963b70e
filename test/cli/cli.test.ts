import { describe, it, expect } from 'vitest';
import { spawn, execFile } from 'node:child_process';
import { mkdtemp, rm, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const root = join(import.meta.dirname, '..', '..');
const bin = join(root, 'node_modules', '.bin', 'svc');
const run = promisify(execFile);

/** Starts `svc start` as a user would and resolves once it printed its URL. */
function startCli(dataDir: string) {
  const child = spawn(bin, ['start', '--port', '0', '--data-dir', dataDir], { cwd: root, env: { ...process.env, SVC_LOG_LEVEL: 'SILENT' } });
  let out = '';
  const ready = new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (d) => {
      out += d;
      const m = /running at (http:\/\/\S+)/.exec(out);
      if (m && out.includes('Admin API key')) resolve(m[1]);
    });
    child.stderr.on('data', (d) => (out += d));
    child.once('exit', (code) => reject(new Error(`svc start exited ${code}: ${out}`)));
  });
  return { child, ready, output: () => out };
}

function stop(child: ReturnType<typeof spawn>) {
  return new Promise<number | null>((resolve) => {
    child.once('exit', (code) => resolve(code));
    child.kill('SIGTERM');
  });
}

describe('svc CLI', () => {
  it('svc --help lists the commands', async () => {
    const { stdout } = await run(bin, ['--help'], { cwd: root });
    expect(stdout).toContain('Usage: svc <command>');
    expect(stdout).toContain('start');
  });

  it('an unknown command or bad usage exits 2 with the problem and where the help is, not the whole help', async () => {
    await expect(run(bin, ['frobnicate'], { cwd: root })).rejects.toMatchObject({ code: 2, stderr: 'svc: unknown command "frobnicate"\nRun "svc help" for the commands.\n' });
    await expect(run(bin, ['run', '--workers', '0'], { cwd: root })).rejects.toMatchObject({ code: 2, stderr: 'svc run: --url is required\nRun "svc run --help" for its options.\n' });
  });

  it('svc run --help documents --resume; --resume refuses a second --url/--tests and an unknown run (exit 2)', async () => {
    const { stdout } = await run(bin, ['run', '--help'], { cwd: root });
    expect(stdout).toContain('svc run --resume <run-id>');
    await expect(run(bin, ['run', '--resume', 'x', '--url', 'http://127.0.0.1:9'], { cwd: root })).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining('--resume continues a run with its own --url') });
    const state = await mkdtemp(join(tmpdir(), 'svc-resume-'));
    try {
      await expect(run(bin, ['run', '--resume', 'no-such-run', '--state-dir', state, '--out', join(state, 'out')], { cwd: root })).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining('no resumable run no-such-run') });
    } finally {
      await rm(state, { recursive: true, force: true });
    }
  });

  it('svc start takes its port and data folder from SVC_PORT and SVC_DATA_DIR', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'svc-cli-env-'));
    const port = 40_000 + (process.pid % 20_000);
    const child = spawn(bin, ['start'], { cwd: root, env: { ...process.env, SVC_LOG_LEVEL: 'SILENT', SVC_PORT: String(port), SVC_DATA_DIR: dataDir } });
    try {
      let out = '';
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', (d) => {
          out += d;
          if (out.includes('Admin API key')) resolve();
        });
        child.once('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
      });
      expect(out).toContain(`running at http://127.0.0.1:${port}`);
      expect(out).toContain(`Data folder   ${dataDir}`);
      expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(200);
      expect(JSON.parse(await readFile(join(dataDir, 'first-admin.json'), 'utf8')).email).toBe('admin@svc.local');
    } finally {
      await stop(child);
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('svc start prints URL and first admin, answers /health, and keeps data across a restart', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'svc-cli-'));
    try {
      const first = startCli(dataDir);
      const url = await first.ready;
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(first.output()).toMatch(/Admin login\s+admin@svc\.local \/ \S+/);
      const key = /Admin API key (svc_sk_\S+)/.exec(first.output())![1];
      expect((await (await fetch(`${url}/health`)).json()).status).toBe('ok');
      const created = await fetch(`${url}/api/v1/projects`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'survives restarts' }),
      });
      expect(created.status).toBe(201);
      expect(await stop(first.child)).toBe(0);

      const saved = JSON.parse(await readFile(join(dataDir, 'first-admin.json'), 'utf8'));
      expect(saved.apiKey).toBe(key);

      const second = startCli(dataDir);
      const url2 = await second.ready;
      expect(second.output()).toContain(key);
      const list = await fetch(`${url2}/api/v1/projects`, { headers: { authorization: `Bearer ${key}` } });
      const body = await list.json();
      expect(body.items.map((p: { name: string }) => p.name)).toEqual(['survives restarts']);
      await stop(second.child);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
