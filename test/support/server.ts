import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalRuntime, type LocalRuntime, type LocalRuntimeOptions } from '../../packages/functions/src/local/runtime.ts';
import { parseLocalConfig } from '../../packages/functions/src/local/config.ts';

export interface TestServer {
  url: string;
  runtime: LocalRuntime;
  dataDir: string;
  admin: { email: string; password: string; apiKey: string; organizationId: string };
  stop(): Promise<void>;
}

/**
 * The real local runtime on 127.0.0.1 with a free port and an empty temporary data
 * folder (or a given one, to test restarts).
 */
export async function startTestServer(opts: { dataDir?: string; env?: Record<string, string>; runtime?: LocalRuntimeOptions; port?: number } = {}): Promise<TestServer> {
  const dataDir = opts.dataDir ?? (await mkdtemp(join(tmpdir(), 'svc-test-')));
  const config = parseLocalConfig({ SVC_LOG_LEVEL: 'SILENT', SVC_AUTH_RATE_LIMIT: '10000', ...opts.env }, { port: opts.port ?? 0, dataDir });
  const runtime = await startLocalRuntime(config, opts.runtime);
  return {
    url: runtime.url,
    runtime,
    dataDir,
    admin: runtime.admin,
    async stop() {
      await runtime.close();
      if (!opts.dataDir) await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** A small JSON client for API tests: every call returns status, headers and parsed body. */
export function client(baseUrl: string, defaults: { token?: string; org?: string; headers?: Record<string, string> } = {}) {
  async function call(method: string, path: string, body?: unknown, extra: { token?: string | null; org?: string | null; headers?: Record<string, string>; raw?: string } = {}) {
    const headers: Record<string, string> = { ...defaults.headers, ...extra.headers };
    const token = extra.token === null ? undefined : (extra.token ?? defaults.token);
    const org = extra.org === null ? undefined : (extra.org ?? defaults.org);
    if (token) headers.authorization = `Bearer ${token}`;
    if (org) headers['x-organization-id'] = org;
    let payload: string | undefined = extra.raw;
    if (body !== undefined && payload === undefined) payload = JSON.stringify(body);
    if (payload !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json';
    const res = await fetch(baseUrl + path, { method, headers, body: payload, redirect: 'manual' });
    const text = await res.text();
    let json: any;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    return { status: res.status, headers: res.headers, body: json, text };
  }
  return {
    get: (path: string, extra?: Parameters<typeof call>[3]) => call('GET', path, undefined, extra),
    post: (path: string, body?: unknown, extra?: Parameters<typeof call>[3]) => call('POST', path, body ?? {}, extra),
    patch: (path: string, body?: unknown, extra?: Parameters<typeof call>[3]) => call('PATCH', path, body ?? {}, extra),
    put: (path: string, body?: unknown, extra?: Parameters<typeof call>[3]) => call('PUT', path, body ?? {}, extra),
    delete: (path: string, extra?: Parameters<typeof call>[3]) => call('DELETE', path, undefined, extra),
    call,
  };
}

export type Client = ReturnType<typeof client>;

/** Signs up a fresh user with their own organization; returns a client authenticated as them. */
export async function signUp(baseUrl: string, email: string, organizationName = `${email} org`) {
  const anon = client(baseUrl);
  const res = await anon.post('/api/auth/signup', { email, password: 'correct horse battery', organization_name: organizationName });
  if (res.status !== 201) throw new Error(`sign-up failed: ${res.status} ${res.text}`);
  return { token: res.body.access_token as string, orgId: res.body.organization.id as string, userId: res.body.user.id as string, session: res.body };
}

/** Polls a run's status until it has ended (completed, failed or cancelled) and returns the run; throws after `timeoutMs`. */
export async function runEnded(api: Client, runId: string, timeoutMs = 60_000) {
  for (const deadline = Date.now() + timeoutMs; ; await new Promise((r) => setTimeout(r, 100))) {
    const run = (await api.get(`/api/v1/test/status/${runId}`)).body.run;
    if (['completed', 'failed', 'cancelled'].includes(run.status)) return run;
    if (Date.now() > deadline) throw new Error(`run ${runId} did not finish in ${timeoutMs / 1000} s`);
  }
}
