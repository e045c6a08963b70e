/**
 * Server-side request forgery (spec: Authentication rule 9): svc never requests a
 * link-local / cloud metadata address, where a machine's credentials are served. A
 * project or run URL naming one is refused naming the field; an API test's request and a
 * UI test's goto to one fail as configuration without a request leaving the machine
 * (svc run, real Chromium). Loopback and private addresses stay allowed: apps under test
 * live there.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isMetadataHost } from '../../packages/core/src/net/metadata-hosts.ts';
import { startTestServer, client, signUp, type TestServer, type Client } from '../support/server.ts';

let server: TestServer;
let api: Client;
let dir: string;

beforeAll(async () => {
  server = await startTestServer();
  const user = await signUp(server.url, 'ssrf@example.com');
  api = client(server.url, { token: user.token, org: user.orgId });
  dir = await mkdtemp(join(tmpdir(), 'svc-ssrf-'));
});
afterAll(async () => {
  await server?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('metadata addresses', () => {
  it('are told apart from the addresses apps under test live at', () => {
    for (const h of ['169.254.169.254', '169.254.170.2', '[fe80::1]', 'fd00:ec2::254', 'metadata.google.internal', 'METADATA.google.internal.', '[::ffff:a9fe:a9fe]']) expect(isMetadataHost(h), h).toBe(true);
    for (const h of ['127.0.0.1', 'localhost', '10.0.0.5', '192.168.1.10', '[::1]', 'example.com', '169.25.1.1']) expect(isMetadataHost(h), h).toBe(false);
  });

  it('an IPv4 link-local address carried in IPv6 is one too, in every spelling URL gives it (found by QA)', () => {
    for (const url of ['http://[::a9fe:a9fe]/', 'http://[::169.254.169.254]/', 'http://[::ffff:0:a9fe:a9fe]/', 'http://[64:ff9b::a9fe:a9fe]/', 'http://[64:ff9b:1::a9fe:a9fe]/', 'http://[2002:a9fe:a9fe::]/', 'http://[0:0:0:0:0:ffff:a9fe:a9fe]/', 'http://[FE80:0::1]/', 'http://[febf::1]/', 'http://[fd00:ec2:0::254]/']) {
      expect(isMetadataHost(new URL(url).hostname), url).toBe(true);
    }
    for (const url of ['http://[::ffff:a00:5]/', 'http://[64:ff9b::a00:5]/', 'http://[2002:a00:5::]/', 'http://[fec0::1]/', 'http://[2001:db8::a9fe:a9fe]/', 'http://[::1]/']) {
      expect(isMetadataHost(new URL(url).hostname), url).toBe(false);
    }
  });

  it('a project or run URL naming one is a 400 naming the field', async () => {
    const project = await api.post('/api/v1/projects', { name: 'imds', app_url: 'http://169.254.169.254/latest/meta-data/' });
    expect(project.status).toBe(400);
    expect(project.body.error.details.issues[0]).toMatchObject({ path: 'app_url', message: expect.stringContaining('cloud metadata address') });
    const ok = (await api.post('/api/v1/projects', { name: 'local', app_url: 'http://127.0.0.1:3000' })).body.id;
    const run = await api.post('/api/v1/test/run', { project_id: ok, app_url: 'http://169.254.169.254/' });
    expect(run.status).toBe(400);
    expect(run.body.error.details.issues[0].path).toBe('app_url');
  });

  it('a request step and a goto to one fail as configuration, naming the host (svc run, Chromium)', async () => {
    const suite = join(dir, 'imds.json');
    await writeFile(suite, JSON.stringify({
      name: 'imds',
      tests: [
        { id: 'api', name: 'api', type: 'api', steps: [{ type: 'request', url: 'http://169.254.169.254/latest/meta-data/' }] },
        { id: 'ui', name: 'ui', type: 'ui', steps: [{ type: 'goto', url: 'http://[fd00:ec2::254]/latest/' }] },
      ],
    }));
    const out = join(dir, 'out');
    const bin = join(import.meta.dirname, '..', '..', 'node_modules', '.bin', 'svc');
    const code = await new Promise<number>((resolve) => execFile(bin, ['run', '--url', 'http://127.0.0.1:9', '--tests', suite, '--out', out, '--state-dir', join(dir, 'state'), '--reporter', 'json'], { timeout: 120_000 }, (err) => resolve(err ? Number(err.code) : 0)));
    expect(code).toBe(1);
    const report = JSON.parse(await readFile(join(out, 'report.json'), 'utf8'));
    const byId = Object.fromEntries(report.tests.map((t: { id: string; error: { kind: string; message: string } }) => [t.id, t.error]));
    expect(byId.api).toMatchObject({ kind: 'configuration', message: 'step 1 (GET http://169.254.169.254/latest/meta-data/): http://169.254.169.254: 169.254.169.254 is a link-local / cloud metadata address, which svc never requests (server-side request forgery)' });
    expect(byId.ui).toMatchObject({ kind: 'configuration', message: expect.stringContaining('goto: [fd00:ec2::254] is a link-local / cloud metadata address') });
  }, 120_000);

  it("an API step's host name that resolves to one is refused before connecting; names of real apps resolve as ever", async () => {
    const { createServer } = await import('node:http');
    const { createMetadataSafeFetch, metadataSafeFetch } = await import('../../packages/functions/src/net/metadata-safe-fetch.ts');
    const { createHttpExchange } = await import('../../packages/core/src/execution/api/http-exchange.ts');
    const app = createServer((_req, res) => res.end('{"ok":true}'));
    await new Promise<void>((r) => app.listen(0, '127.0.0.1', r));
    const port = (app.address() as { port: number }).port;
    const ctx = { signal: new AbortController().signal, deadline: Date.now() + 10_000, log: () => {} };
    try {
      // A name the machine resolves (localhost): the request is made as with any fetch.
      const real = createHttpExchange({ fetch: metadataSafeFetch });
      expect((await real({ type: 'request', url: `http://localhost:${port}/` } as never, ctx)).body).toEqual({ ok: true });
      // Public DNS is out of reach here: the resolver is the machine's own, answering for two made-up names as a public one would.
      const answers: Record<string, Array<{ address: string; family: number }>> = { 'imds.example.test': [{ address: '169.254.169.254', family: 4 }], 'mixed.example.test': [{ address: '127.0.0.1', family: 4 }, { address: 'fd00:ec2::254', family: 6 }] };
      const lookup = ((hostname: string, _o: unknown, callback: (err: Error | null, a: Array<{ address: string; family: number }>) => void) => callback(null, answers[hostname] ?? [{ address: '127.0.0.1', family: 4 }])) as never;
      const guarded = createHttpExchange({ fetch: createMetadataSafeFetch({ lookup }) });
      for (const host of ['imds.example.test', 'mixed.example.test']) {
        const failure = await guarded({ type: 'request', url: `http://${host}:${port}/` } as never, ctx).then(() => undefined, (e: { kind: string; message: string }) => e);
        expect(failure, host).toMatchObject({ kind: 'configuration', message: expect.stringMatching(new RegExp(`^GET http://${host.replace(/\./g, '\\.')}:${port}/: ${host.replace(/\./g, '\\.')} resolves to (169\\.254\\.169\\.254|fd00:ec2::254): .* cloud metadata address`)) });
      }
      // Any other name the resolver answers with the app's address is requested.
      expect((await guarded({ type: 'request', url: `http://shop.example.test:${port}/` } as never, ctx)).status).toBe(200);
    } finally {
      app.close();
    }
  });

  it("the browser resolves none of them for any request: a redirect a goto follows, a page's fetch and image (found by QA)", async () => {
    const { createServer } = await import('node:http');
    const { createPlaywrightDriver } = await import('../../packages/functions/src/execution/browser/playwright-driver.ts');
    const app = createServer((req, res) => {
      if (req.url?.startsWith('/to-metadata')) {
        res.writeHead(302, { location: req.url.endsWith('v6') ? 'http://[::ffff:169.254.169.254]/' : req.url.endsWith('gcp') ? 'http://metadata.google.internal/computeMetadata/v1/' : 'http://169.254.169.254/latest/meta-data/' });
        return void res.end();
      }
      res.setHeader('content-type', 'text/html');
      res.end(`<h1>app</h1><img src="http://169.254.170.2/v2/credentials" onerror="document.body.dataset.img='blocked'" onload="document.body.dataset.img='loaded'">
        <script>fetch('http://169.254.169.254/latest/meta-data/').then((r) => { document.title = 'answered ' + r.status; }, () => { document.title = 'refused'; });</script>`);
    });
    await new Promise<void>((r) => app.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(app.address() as { port: number }).port}`;
    const driver = await createPlaywrightDriver();
    try {
      const ctx = () => ({ signal: new AbortController().signal, deadline: Date.now() + 10_000, log: () => {} });
      for (const path of ['/to-metadata', '/to-metadata-v6', '/to-metadata-gcp']) {
        const redirected = await driver.openSession({ baseUrl: url, trace: false });
        const failure = await redirected.perform({ type: 'goto', url: path } as never, ctx()).then(() => undefined, (e: { kind: string; message: string }) => e);
        await redirected.close();
        expect(failure, path).toMatchObject({ kind: 'navigation', message: expect.stringMatching(/ERR_NAME_NOT_RESOLVED|interrupted by another navigation/) });
      }
      const session = await driver.openSession({ baseUrl: url, trace: false });
      await session.perform({ type: 'goto', url: '/' } as never, ctx());
      await expect.poll(() => session.title(), { timeout: 10_000 }).toBe('refused');
      await expect.poll(() => session.html!(10_000).then((p) => /data-img="blocked"/.test(p.html)), { timeout: 10_000 }).toBe(true);
      await session.close();
    } finally {
      await driver.close();
      app.close();
    }
  }, 120_000);
});
