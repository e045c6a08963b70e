/**
 * Crash safety: SIGKILL the local server in the middle of a run; after a restart on the
 * same data folder the run continues from its last checkpoint — no completed result is
 * lost or stored twice, and finished tests are not run again. An approval wait survives
 * the crash too.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, type Client } from '../support/server.ts';
import { apiTest, startTarget, type Target } from './support/target.ts';
import { openSse } from './support/sse-client.ts';

const repoRoot = resolve(import.meta.dirname, '../..');
const childScript = join(repoRoot, 'test/run-graph/support/server-child.ts');

let target: Target;
let dataDir: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
  target = await startTarget();
  dataDir = await mkdtemp(join(tmpdir(), 'svc-crash-'));
});
afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await target?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

async function startChild(): Promise<{ child: ChildProcess; api: Client; url: string; apiKey: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', childScript, dataDir], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let err = '';
  child.stderr!.on('data', (d) => (err += d));
  const line = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
      const i = out.indexOf('\n');
      if (i >= 0) resolve(out.slice(0, i));
    });
    child.once('exit', (code) => reject(new Error(`server exited (${code}): ${err}`)));
  });
  const info = JSON.parse(line) as { url: string; apiKey: string; orgId: string };
  return { child, api: client(info.url, { token: info.apiKey }), url: info.url, apiKey: info.apiKey };
}

function kill(child: ChildProcess): Promise<void> {
  return new Promise((r) => {
    child.once('exit', () => r());
    child.kill('SIGKILL');
  });
}

async function waitFor<T>(probe: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('SIGKILL in the middle of a run', () => {
  it('the run continues from its last checkpoint after a restart; no result lost or duplicated', async () => {
    let { child, api } = await startChild();
    let url: string;
    let apiKey: string;
    const projectId = (await api.post('/api/v1/projects', { name: 'crash', app_url: target.url })).body.id;
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) ids.push((await api.post('/api/tests', { project_id: projectId, ...apiTest(`t${i}`, `/slow?ms=250&id=k${i}`), description: undefined })).body.id);
    const run = (await api.post('/api/v1/test/run', { project_id: projectId, test_ids: ids, max_concurrency: 1 })).body;
    expect(run.run.status).toBe('running');

    const before = await waitFor(async () => {
      const items = (await api.get(`/api/v1/tests/${run.run.id}/results`)).body.items as Array<{ test_id: string }>;
      return items.length >= 3 ? items : undefined;
    });
    await kill(child);
    const storedBeforeKill = new Set(before.map((r) => r.test_id));

    ({ child, api, url, apiKey } = await startChild());
    const done = await waitFor(async () => {
      const s = (await api.get(`/api/v1/test/status/${run.run.id}`)).body;
      return s.run.status === 'completed' ? s : undefined;
    });
    expect(done).toMatchObject({ passed_count: 10, failed_count: 0, run: { total_tests: 10, passed_tests: 10 } });

    const results = (await api.get(`/api/v1/tests/${run.run.id}/results`)).body.items as Array<{ test_id: string; attempt: number; status: string }>;
    expect(results).toHaveLength(10);
    expect(new Set(results.map((r) => r.test_id))).toEqual(new Set(ids));
    expect(results.every((r) => r.attempt === 1 && r.status === 'passed')).toBe(true);
    // Finished before the kill: never executed again. At most the one in flight ran twice.
    for (const [i, id] of ids.entries()) {
      const hits = target.hits(`/slow?id=k${i}`);
      if (storedBeforeKill.has(id)) expect(hits, `k${i}`).toBe(1);
      else expect(hits, `k${i}`).toBeLessThanOrEqual(2);
    }
    expect(ids.reduce((n, _, i) => n + target.hits(`/slow?id=k${i}`), 0)).toBeLessThanOrEqual(11);

    // The stream tells the whole story, ids unbroken across the crash.
    const s = await openSse(`${url}/stream/${run.thread_id}`, { headers: { authorization: `Bearer ${apiKey}` } });
    await s.done;
    expect(s.events.map((e) => Number(e.id))).toEqual(s.events.map((_, i) => i + 1));
    expect(s.events.some((e) => e.event === 'log' && /resuming the run from its last checkpoint/.test(e.data.message))).toBe(true);
    expect(s.events.at(-1)).toMatchObject({ event: 'complete', data: { summary: { status: 'completed', passed: 10 } } });
    // Every node_start has its node_end: the nodes the kill cut off end as interrupted before the resumed run starts them
    // again (found by QA: the test in flight had two node_starts and one node_end).
    const open = new Map<string, number>();
    const interrupted: string[] = [];
    const resumedAt = s.events.findIndex((e) => e.event === 'log' && /resuming the run/.test(e.data.message));
    for (const [i, e] of s.events.entries()) {
      const key = `${e.data?.node} ${e.data?.test_id ?? ''}`;
      if (e.event === 'node_start') {
        expect(open.get(key) ?? 0, `${key} started while it was running`).toBe(0);
        open.set(key, 1);
      }
      if (e.event === 'node_end') {
        expect(open.get(key), `${key} ended without a start`).toBe(1);
        open.set(key, 0);
        if (e.data.status === 'interrupted') {
          expect(i).toBeLessThan(resumedAt);
          interrupted.push(e.data.test_id ?? e.data.node);
        }
      }
    }
    expect([...open].filter(([, n]) => n > 0)).toEqual([]);
    // A test whose request went out twice was in flight at the kill: its first execution ended as interrupted.
    for (const [i, id] of ids.entries()) if (target.hits(`/slow?id=k${i}`) === 2) expect(interrupted).toContain(id);
    await kill(child);
  });

  it('an approval wait survives the crash: approve after the restart and the run completes', async () => {
    let { child, api } = await startChild();
    const projectId = (await api.post('/api/v1/projects', { name: 'crash-approval', app_url: target.url })).body.id;
    const id = (await api.post('/api/tests', { project_id: projectId, ...apiTest('a', '/ok?id=ka'), description: undefined })).body.id;
    const run = (await api.post('/api/v1/test/run', { project_id: projectId, test_ids: [id], require_test_plan_approval: true })).body;
    await waitFor(async () => ((await api.get(`/api/v1/test/status/${run.thread_id}`)).body.run.status === 'awaiting_approval' ? true : undefined));
    await kill(child);

    ({ child, api } = await startChild());
    expect((await api.get('/api/v1/approvals/pending')).body.items.map((a: { thread_id: string }) => a.thread_id)).toContain(run.thread_id);
    const approved = await api.post(`/api/v1/approvals/${run.thread_id}/approve`, {});
    expect(approved.status).toBe(200);
    const done = await waitFor(async () => {
      const s = (await api.get(`/api/v1/test/status/${run.thread_id}`)).body;
      return s.run.status === 'completed' ? s : undefined;
    });
    expect(done.passed_count).toBe(1);
    expect(target.hits('/ok?id=ka')).toBe(1);
    await kill(child);
  });
});
