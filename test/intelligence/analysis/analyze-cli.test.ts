import { describe, it, expect, afterAll } from 'vitest';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { sampleRepo, SENTINEL } from './sample-repos.ts';
import { startTestServer, client, signUp } from '../../support/server.ts';

const bin = join(import.meta.dirname, '..', '..', '..', 'node_modules', '.bin', 'svc');
const run = promisify(execFile);
const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const c of cleanups) await c();
});

describe('svc analyze', () => {
  it('prints the summary and the surfaces, without secrets', async () => {
    const repo = await sampleRepo('express-shop');
    cleanups.push(repo.remove);
    const { stdout } = await run(bin, ['analyze', repo.dir]);
    expect(stdout).toContain('Frameworks: express');
    expect(stdout).toMatch(/POST\s+\/login\s+http_route\s+express\s+src\/server\.js:13/);
    expect(stdout).toMatch(/Forms \(1\):/);
    expect(stdout).toMatch(/Skipped: \d+ — .*blocked: environment file/);
    expect(stdout).not.toContain(SENTINEL);
  });

  it('--json prints the whole analysis', async () => {
    const repo = await sampleRepo('react-spa');
    cleanups.push(repo.remove);
    const { stdout } = await run(bin, ['analyze', repo.dir, '--json']);
    const out = JSON.parse(stdout);
    expect(out.summary.counts.client_routes).toBe(10);
    expect(out.root).toBe(repo.dir);
    expect(stdout).not.toContain(SENTINEL);
  });

  it('a missing folder or bad usage exits 2 with a clear message', async () => {
    await expect(run(bin, ['analyze', '/no/such/folder'])).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining('path does not exist: /no/such/folder') });
    await expect(run(bin, ['analyze'])).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining('exactly one folder') });
    await expect(run(bin, ['analyze', '.', '--max-files', 'lots'])).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining('--max-files') });
  });
});

describe('svc analyze --upload', () => {
  it("hands a folder to a server's knowledge worker, credential files never sent, and waits for the analysis", async () => {
    const server = await startTestServer();
    cleanups.push(() => server.stop());
    const repo = await sampleRepo('express-shop');
    cleanups.push(repo.remove);
    const admin = client(server.url, { token: server.admin.apiKey });
    const projectId = (await admin.post('/api/v1/projects', { name: 'shop' })).body.id as string;
    // No stored sign-in: the credential comes from SVC_API_KEY.
    const env = { ...process.env, SVC_API_KEY: server.admin.apiKey, SVC_CONFIG_DIR: await mkdtemp(join(tmpdir(), 'svc-cfg-')) };

    const { stdout } = await run(bin, ['analyze', repo.dir, '--upload', '--project', projectId, '--server', server.url, '--commit', 'abc1234', '--wait'], { env });
    const id = /ingestion ([0-9a-f-]{36})/.exec(stdout)![1];
    expect(stdout).toMatch(/^Queued \d+ files of .* for the knowledge worker \(ingestion [0-9a-f-]{36}\); \d+ skipped here, never sent/m);
    expect(stdout).toMatch(/^Analysed: \d+ surfaces\. .*Frameworks: express/m);

    const got = await admin.get(`/api/analyze/${id}`);
    expect(got.body).toMatchObject({ status: 'analyzed', commit_sha: 'abc1234', source: { kind: 'inline' } });
    expect(got.body.analysis.surfaces).toContainEqual(expect.objectContaining({ method: 'POST', path: '/login' }));
    // Blocked files were never read, so never sent: the server did not even see them.
    const sent = got.body.analysis.files.map((f: { path: string }) => f.path);
    expect(sent.some((p: string) => /(^|\/)\.env|id_rsa|\.pem$|credentials|secrets\.json/.test(p))).toBe(false);
    expect(JSON.stringify(got.body)).not.toContain(SENTINEL);

    // --json prints the ingestion (not the whole analysis).
    const json = JSON.parse((await run(bin, ['analyze', repo.dir, '--upload', '--project', projectId, '--server', server.url, '--wait', '--json'], { env })).stdout);
    expect(json).toMatchObject({ status: 'analyzed', project_id: projectId });
    expect(json.analysis).toBeUndefined();
  });

  it('bad usage, no credential, and a refused upload exit 2 saying why', async () => {
    const server = await startTestServer();
    cleanups.push(() => server.stop());
    const env = { ...process.env, SVC_API_KEY: '', SVC_TOKEN: '', SVC_CONFIG_DIR: await mkdtemp(join(tmpdir(), 'svc-cfg-')) };
    await expect(run(bin, ['analyze', '.', '--upload'], { env })).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining('--upload needs --project') });
    await expect(run(bin, ['analyze', '.', '--wait'], { env })).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining('--wait goes with --upload') });
    const projectArgs = ['--upload', '--project', '0196a000-0000-7000-8000-000000000001', '--server', server.url];
    await expect(run(bin, ['analyze', join(import.meta.dirname, '..', '..', 'fixtures', 'graph-repo'), ...projectArgs], { env })).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining('set SVC_API_KEY') });
    // Another organization's project (or none): the server's 404, said as such.
    const other = await signUp(server.url, 'cli-upload-other@example.com');
    const key = (await client(server.url, { token: other.token, org: other.orgId }).post('/api/api-keys', { name: 'ci', permissions: ['read', 'write'] })).body.key as string;
    await expect(run(bin, ['analyze', join(import.meta.dirname, '..', '..', 'fixtures', 'graph-repo'), ...projectArgs], { env: { ...env, SVC_API_KEY: key } }))
      .rejects.toMatchObject({ code: 2, stderr: expect.stringMatching(/POST \/api\/analyze: 404 /) });
  });
});

