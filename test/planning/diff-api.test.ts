/**
 * POST /api/suggest with a pull request's diff, over real HTTP on the local runtime (found
 * by QA): git quotes a path that has a non-ASCII character, a quote or a backslash
 * (`"b/src/pages/\303\274ber.ts"`, core.quotePath's default), and `diff -u` ends its
 * header lines with a tab and a timestamp. The plan took those headers as they were:
 * `changed_files` listed `"b/src/pages/\303\274ber.ts"` and
 * `new/checkout.ts\t2026-12-02 13:51:09…`, and the surfaces declared in those files were
 * not ranked as changed. The diffs below are what git 2 and GNU diff print.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, client, signUp, type TestServer, type Client } from '../support/server.ts';

let server: TestServer;
let api: Client;

beforeAll(async () => {
  server = await startTestServer();
  const me = await signUp(server.url, 'plan-diff@example.com');
  api = client(server.url, { token: me.token, org: me.orgId });
});
afterAll(async () => {
  await server?.stop();
});

const GIT_DIFF = [
  'diff --git "a/src/pages/say \\"hi\\".ts" "b/src/pages/say \\"hi\\".ts"',
  'index 7898192..422c2b7 100644',
  '--- "a/src/pages/say \\"hi\\".ts"\t',
  '+++ "b/src/pages/say \\"hi\\".ts"\t',
  '@@ -1 +1,2 @@',
  ' a',
  '+b',
  'diff --git "a/src/pages/\\303\\274ber.ts" "b/src/pages/\\303\\274ber.ts"',
  'index 7898192..422c2b7 100644',
  '--- "a/src/pages/\\303\\274ber.ts"',
  '+++ "b/src/pages/\\303\\274ber.ts"',
  '@@ -1 +1,2 @@',
  ' a',
  '+b',
  '',
].join('\n');

const GNU_DIFF = ['--- old/checkout.ts\t2026-12-02 13:51:09.998888726 +0000', '+++ new/checkout.ts\t2026-12-02 13:51:09.998888726 +0000', '@@ -1 +1 @@', '-a', '+b', ''].join('\n');

describe('POST /api/suggest with a diff', () => {
  it("reads git's quoted paths (non-ASCII, quotes) and diff -u's timestamped headers, and ranks the surfaces of those files as changed", async () => {
    const surfaces = [
      { kind: 'page', method: 'GET', path: '/ueber', file: 'src/pages/über.ts' },
      { kind: 'page', method: 'GET', path: '/greeting', file: 'src/pages/say "hi".ts' },
      { kind: 'http_route', method: 'GET', path: '/basket', file: 'new/checkout.ts' },
      { kind: 'page', method: 'GET', path: '/about', file: 'src/pages/about.ts' },
    ];
    const r = await api.post('/api/suggest', { surfaces, diff: GIT_DIFF + GNU_DIFF });
    expect(r.status, r.text).toBe(200);
    expect(r.body.changed_files).toEqual(['src/pages/say "hi".ts', 'src/pages/über.ts', 'new/checkout.ts']);
    const reasons = Object.fromEntries(r.body.items.map((i: { target: string; reasons: string[] }) => [i.target, i.reasons]));
    expect(reasons['GET /ueber']).toContain('changed in this diff: src/pages/über.ts');
    expect(reasons['GET /greeting']).toContain('changed in this diff: src/pages/say "hi".ts');
    expect(reasons['GET /basket']).toContain('changed in this diff: new/checkout.ts');
    expect(reasons['GET /about']).toEqual(['baseline coverage']);
  });
});
