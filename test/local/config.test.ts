/**
 * The local runtime's configuration (packages/functions/src/local/config.ts): the folders
 * code analysis may read (SVC_ANALYZE_ROOTS) are a setting like the others, parsed once
 * at the edge, and the runtime reads them from its config, not from process.env.
 */
import { delimiter, join, resolve } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { parseLocalConfig } from '../../packages/functions/src/local/config.ts';
import { client, signUp, startTestServer, type TestServer } from '../support/server.ts';
import { reposDir } from '../intelligence/analysis/sample-repos.ts';

describe('analyze roots in the local config', () => {
  it('are none when SVC_ANALYZE_ROOTS is unset or blank', () => {
    expect(parseLocalConfig({}).analyzeRoots).toEqual([]);
    expect(parseLocalConfig({ SVC_ANALYZE_ROOTS: '' }).analyzeRoots).toEqual([]);
    expect(parseLocalConfig({ SVC_ANALYZE_ROOTS: ' , ,' }).analyzeRoots).toEqual([]);
  });

  it('split on commas and the path delimiter, trimmed and made absolute', () => {
    const config = parseLocalConfig({ SVC_ANALYZE_ROOTS: ` /srv/repos , relative/checkouts${delimiter}/opt/code ` });
    expect(config.analyzeRoots).toEqual(['/srv/repos', resolve('relative/checkouts'), '/opt/code']);
  });

  it('take a flag over the environment', () => {
    expect(parseLocalConfig({ SVC_ANALYZE_ROOTS: '/from/env' }, { analyzeRoots: '/from/flag' }).analyzeRoots).toEqual(['/from/flag']);
    expect(parseLocalConfig({ SVC_ANALYZE_ROOTS: '/from/env' }, { analyzeRoots: undefined }).analyzeRoots).toEqual(['/from/env']);
  });
});

describe('the public URL in the local config (SVC_PUBLIC_URL)', () => {
  it('is none when unset, a base without its trailing slash when set, and refused naming the variable otherwise', () => {
    expect(parseLocalConfig({}).publicUrl).toBeUndefined();
    expect(parseLocalConfig({ SVC_PUBLIC_URL: 'https://svc.example.com/' }).publicUrl).toBe('https://svc.example.com');
    expect(() => parseLocalConfig({ SVC_PUBLIC_URL: 'svc.example.com' })).toThrow(/publicUrl: must be an http\(s\) URL/);
    expect(() => parseLocalConfig({ SVC_PUBLIC_URL: 'https://svc.example.com/?x=1' })).toThrow(/publicUrl: a base URL without query or fragment/);
  });
});

describe('the local runtime reads the analyze roots from its config', () => {
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.stop();
    server = undefined;
    vi.unstubAllEnvs();
  });

  const analyseFolder = async (s: TestServer, email: string) => {
    const user = await signUp(s.url, email);
    const api = client(s.url, { token: user.token, org: user.orgId });
    const project = (await api.post('/api/v1/projects', { name: 'shop' })).body.id;
    return api.post('/api/analyze', { project_id: project, path: join(reposDir, 'fastify-api') });
  };

  it('analyses a folder inside the configured roots', async () => {
    server = await startTestServer({ env: { SVC_ANALYZE_ROOTS: reposDir } });
    const res = await analyseFolder(server, 'roots@example.com');
    expect(res.status, res.text).toBe(200);
    expect(res.body.source).toMatchObject({ kind: 'path', partial: false });
    expect(res.body.summary.counts.http_routes).toBe(6);
  });

  it('ignores SVC_ANALYZE_ROOTS in the process environment when the config has none', async () => {
    vi.stubEnv('SVC_ANALYZE_ROOTS', reposDir);
    server = await startTestServer({ env: {} });
    const res = await analyseFolder(server, 'noroots@example.com');
    expect(res.status, res.text).toBe(501);
    expect(res.body.error.code).toBe('NOT_CONFIGURED');
  });
});
