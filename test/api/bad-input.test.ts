import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startTestServer, client, signUp, type TestServer, type Client } from '../support/server.ts';

/**
 * Bad input gets the right status and error body, and nothing is written: every case
 * ends by checking that the projects, tests and audit log are as they were.
 */
let server: TestServer;
let admin: Client;
let orgId: string;
let projectId: string;

const SMALL_LIMIT = 64 * 1024;

beforeAll(async () => {
  server = await startTestServer({ env: { SVC_MAX_BODY_BYTES: String(SMALL_LIMIT) } });
  const user = await signUp(server.url, 'bad-input@example.com');
  orgId = user.orgId;
  admin = client(server.url, { token: user.token, org: orgId });
  projectId = (await admin.post('/api/v1/projects', { name: 'existing' })).body.id;
});
afterAll(async () => server?.stop());

async function snapshot() {
  const projects = (await admin.get('/api/v1/projects?limit=200')).body.items;
  const tests = (await admin.get('/api/tests?limit=200')).body.items;
  const audit = (await admin.get('/api/audit-logs?limit=200')).body.items;
  return { projects, tests, auditCount: audit.length };
}

async function expectNothingWritten(run: () => Promise<void>) {
  const before = await snapshot();
  await run();
  expect(await snapshot()).toEqual(before);
}

describe('bad input', () => {
  it('malformed JSON → 400 MALFORMED_JSON', async () => {
    await expectNothingWritten(async () => {
      const res = await admin.call('POST', '/api/v1/projects', undefined, { raw: '{"name": "x",' });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('MALFORMED_JSON');
    });
  });

  it('wrong types → 400 naming each field', async () => {
    await expectNothingWritten(async () => {
      const res = await admin.post('/api/tests', { project_id: projectId, name: 42, type: 'quantum', steps: 'click' });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_FAILED');
      const paths = res.body.error.details.issues.map((i: { path: string }) => i.path).sort();
      expect(paths).toEqual(['name', 'steps', 'type']);
    });
  });

  it('a name with a control character, nothing visible, or a lone surrogate → 400 naming name; nothing is created', async () => {
    await expectNothingWritten(async () => {
      for (const [name, message] of [['a\u0000b', 'must not contain control characters'], ['\u200b\u200b', 'must contain a visible character'], ['\ud800', 'is not valid text (a lone UTF-16 surrogate)']]) {
        const res = await admin.post('/api/v1/projects', { name });
        expect(res.status, JSON.stringify(name)).toBe(400);
        expect(res.body.error.details.issues).toEqual([{ path: 'name', message }]);
      }
      const test = await admin.post('/api/tests', { project_id: projectId, name: 'tab\tin a name', type: 'api' });
      expect(test.body.error.details.issues).toEqual([{ path: 'name', message: 'must not contain control characters' }]);
    });
    // Letters of any script and emoji are names.
    const fine = await admin.post('/api/v1/projects', { name: 'Café ☕ 東京' });
    expect(fine.status).toBe(201);
  });

  it('unknown fields → 400 naming the field', async () => {
    await expectNothingWritten(async () => {
      const res = await admin.post('/api/v1/projects', { name: 'ok', colour: 'blue' });
      expect(res.status).toBe(400);
      expect(res.body.error.details.issues).toEqual([{ path: 'colour', message: 'unknown field' }]);
    });
  });

  it('both spellings of one field with different values → 400', async () => {
    await expectNothingWritten(async () => {
      const res = await admin.post('/api/v1/projects', { name: 'x', url: 'http://a.test', app_url: 'http://b.test' });
      expect(res.status).toBe(400);
    });
  });

  it('an accepted alias is stored under the canonical name', async () => {
    const res = await admin.post('/api/v1/projects', { name: 'aliased', url: 'http://127.0.0.1:3000', settings: { a: 1 } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ app_url: 'http://127.0.0.1:3000', config: { a: 1 } });
    expect(res.body.url).toBeUndefined();
  });

  it('oversize body → 413', async () => {
    await expectNothingWritten(async () => {
      const res = await admin.post('/api/v1/projects', { name: 'big', config: { blob: 'x'.repeat(SMALL_LIMIT + 10) } });
      expect(res.status).toBe(413);
      expect(res.body.error.code).toBe('PAYLOAD_TOO_LARGE');
    });
  });

  it('wrong content type → 415', async () => {
    await expectNothingWritten(async () => {
      const res = await admin.call('POST', '/api/v1/projects', undefined, { raw: 'name=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
      expect(res.status).toBe(415);
      expect(res.body.error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    });
  });

  it('a bad id in the path → 400 naming it; an unknown id → 404', async () => {
    const bad = await admin.get('/api/v1/projects/not-a-uuid');
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.issues[0].path).toBe('id');
    const unknown = await admin.patch('/api/v1/projects/01900000-0000-7000-8000-000000000000', { name: 'x' });
    expect(unknown.status).toBe(404);
  });

  it('an id written in upper case names the same thing (UUIDs are case-insensitive): path, query and body id fields', async () => {
    const upper = projectId.toUpperCase();
    expect(upper).not.toBe(projectId);
    const project = await admin.get(`/api/v1/projects/${upper}`);
    expect(project.status, project.text).toBe(200);
    expect(project.body.id).toBe(projectId);
    const created = await admin.post('/api/tests', { project_id: upper, name: 'upper-case project id', type: 'api', tags: ['A0000000-0000-4000-8000-00000000000B'] });
    expect(created.status, created.text).toBe(201);
    expect(created.body.project_id).toBe(projectId);
    // Only id fields: a value inside the test is kept as written.
    expect(created.body.tags).toEqual(['A0000000-0000-4000-8000-00000000000B']);
    expect((await admin.get(`/api/tests/${created.body.id.toUpperCase()}`)).body.id).toBe(created.body.id);
    const listed = await admin.get(`/api/tests?project_id=${upper}&limit=100`);
    expect(listed.body.items.map((t: { id: string }) => t.id)).toContain(created.body.id);
  });

  it('a test for a project that does not exist → 404 and no event', async () => {
    const events: unknown[] = [];
    const off = server.runtime.bus.subscribe((e) => void events.push(e));
    await expectNothingWritten(async () => {
      const res = await admin.post('/api/tests', { project_id: '01900000-0000-7000-8000-000000000000', name: 't', type: 'ui' });
      expect(res.status).toBe(404);
    });
    off();
    expect(events).toEqual([]);
  });

  it('a cursor that is not one of the list → 400 naming cursor, on every kind of list', async () => {
    await admin.post('/api/tests', { project_id: projectId, name: 'one', type: 'api' });
    await admin.post('/api/tests', { project_id: projectId, name: 'two', type: 'api' });
    const page = await admin.get(`/api/tests?project_id=${projectId}&limit=1`);
    expect(page.body.next_cursor).toBeTruthy();
    const mangled = Buffer.from('{"pk":"x"}').toString('base64url');
    for (const path of ['/api/tests?cursor=garbage', `/api/tests?cursor=${mangled}`, '/api/v1/projects?cursor=garbage', '/api/audit-logs?cursor=garbage', `/api/runs?project_id=${projectId}&cursor=garbage`, '/api/v1/healing/patterns?cursor=garbage']) {
      const res = await admin.get(path);
      expect(res.status, `${path}: ${res.text}`).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_FAILED');
      expect(res.body.error.details.issues[0]).toMatchObject({ path: 'cursor', message: expect.stringMatching(/^not a next_cursor of this list/) });
    }
    // A real cursor of one list given to another (the projects list) is refused the same way.
    const elsewhere = await admin.get(`/api/v1/projects?cursor=${encodeURIComponent(page.body.next_cursor)}`);
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.body.error.details.issues[0].message).toMatch(/^not a next_cursor of this list \(it (is a cursor of another list|does not decode to a key)\)$/);
    // Both lists in the organization's partition, told apart by their sort keys: each refuses the other's cursor, either way round.
    await admin.post('/api/tests', { project_id: projectId, name: 'cursor b', type: 'api' });
    await admin.post('/api/v1/projects', { name: 'cursor project b' });
    const tests = (await admin.get('/api/tests?limit=1')).body.next_cursor;
    const projects = (await admin.get('/api/v1/projects?limit=1')).body.next_cursor;
    expect(tests && projects).toBeTruthy();
    for (const path of [`/api/v1/projects?limit=1&cursor=${encodeURIComponent(tests)}`, `/api/tests?limit=1&cursor=${encodeURIComponent(projects)}`]) {
      const res = await admin.get(path);
      expect(res.status, `${path}: ${res.text}`).toBe(400);
      expect(res.body.error.details.issues[0].message).toBe('not a next_cursor of this list (it is a cursor of another list)');
    }
    expect((await admin.get(`/api/tests?limit=1&cursor=${encodeURIComponent(tests)}`)).status).toBe(200);
  });

  it('missing organization header → 400 ORGANIZATION_REQUIRED', async () => {
    const res = await admin.get('/api/v1/projects', { org: null });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('ORGANIZATION_REQUIRED');
  });

  it('an empty PATCH → 400', async () => {
    await expectNothingWritten(async () => {
      const res = await admin.patch(`/api/v1/projects/${projectId}`, {});
      expect(res.status).toBe(400);
    });
  });

  it('unknown route → 404 in the error body', async () => {
    const res = await admin.get('/api/v1/nope');
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('NOT_FOUND');
  });

  it('a route written with a trailing slash → 404 saying paths have none (not a 405 allowing the method asked for)', async () => {
    for (const [method, path, bare] of [['get', '/api/v1/projects/', '/api/v1/projects'], ['post', '/api/tests/', '/api/tests'], ['get', `/api/tests/${projectId}/`, `/api/tests/${projectId}`]] as const) {
      const res = method === 'get' ? await admin.get(path) : await admin.post(path, {});
      expect(res.status, `${method} ${path}: ${res.text}`).toBe(404);
      expect(res.body.error.message).toBe(`no route for ${method.toUpperCase()} ${path}: svc's paths have no trailing slash (${bare})`);
    }
  });

  it('a method a route does not take → 405 with Allow, naming the methods it does', async () => {
    await expectNothingWritten(async () => {
      const put = await admin.put('/api/v1/projects', { name: 'x' });
      expect(put.status).toBe(405);
      expect(put.headers.get('allow')).toBe('GET, POST');
      expect(put.body.error).toMatchObject({ code: 'METHOD_NOT_ALLOWED', message: 'PUT is not allowed on /api/v1/projects; allowed: GET, POST' });
      const onOne = await admin.post(`/api/v1/projects/${projectId}`, { name: 'x' });
      expect(onOne.status).toBe(405);
      expect(onOne.headers.get('allow')).toBe('GET, PATCH');
    });
  });

  it('a duplicate organization slug → 409', async () => {
    const first = await admin.post('/api/organizations', { name: 'Slugged', slug: 'unique-slug' });
    expect(first.status).toBe(201);
    const second = await admin.post('/api/organizations', { name: 'Other', slug: 'unique-slug' });
    expect(second.status).toBe(409);
    expect(second.body.error.code).toBe('CONFLICT');
  });

  it('the last admin cannot demote themselves → 409', async () => {
    const me = await admin.get('/api/v1/users/me');
    const res = await admin.patch(`/api/teams/members/${encodeURIComponent(me.body.user_id)}`, { role: 'viewer' });
    expect(res.status).toBe(409);
  });

  it('500s carry no internals', async () => {
    // A store failure must not leak its message or stack.
    const table = server.runtime.deps.store.table;
    const original = table.query.bind(table);
    table.query = async () => {
      throw new Error('disk exploded at /secret/path');
    };
    try {
      const res = await admin.get('/api/v1/projects');
      expect(res.status).toBe(500);
      expect(res.body.error.code).toBe('INTERNAL');
      expect(res.text).not.toContain('/secret/path');
      expect(res.text).not.toContain('exploded');
    } finally {
      table.query = original;
    }
  });
});

describe('rate limit', () => {
  it('429 with Retry-After once the budget is spent', async () => {
    const limited = await startTestServer({ env: { SVC_AUTH_RATE_LIMIT: '3' } });
    try {
      const anon = client(limited.url);
      const statuses: number[] = [];
      let retryAfter: string | null = null;
      for (let i = 0; i < 5; i++) {
        const res = await anon.post('/api/auth/login', { email: 'x@example.com', password: 'whatever1' });
        statuses.push(res.status);
        if (res.status === 429) {
          retryAfter = res.headers.get('retry-after');
          expect(res.body.error.code).toBe('RATE_LIMITED');
        }
      }
      expect(statuses.slice(0, 3)).toEqual([401, 401, 401]);
      expect(statuses.slice(3)).toEqual([429, 429]);
      expect(Number(retryAfter)).toBeGreaterThan(0);
    } finally {
      await limited.stop();
    }
  });
});

describe('security headers', () => {
  it('CSP, HSTS and X-Frame-Options on every response', async () => {
    for (const path of ['/health', '/api/v1/projects', '/sign-in']) {
      const res = await fetch(server.url + path);
      expect(res.headers.get('content-security-policy')).toContain("default-src 'self'");
      expect(res.headers.get('strict-transport-security')).toContain('max-age=');
      expect(res.headers.get('x-frame-options')).toBe('DENY');
    }
  });

  it("Playwright's trace viewer at /trace-viewer/ gets its own CSP (blob: reads, data: frames, no other origin); the dashboard keeps its own", async () => {
    const viewer = await fetch(server.url + '/trace-viewer/');
    expect(viewer.status).toBe(200);
    expect(viewer.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await viewer.text()).toContain('<title>Playwright Trace Viewer</title>');
    const csp = viewer.headers.get('content-security-policy')!;
    expect(csp).toContain("connect-src 'self' blob:");
    expect(csp).toContain("frame-src 'self' data:");
    expect(csp).toContain("script-src 'self';");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(viewer.headers.get('x-frame-options')).toBe('DENY');
    const worker = await fetch(server.url + '/trace-viewer/sw.bundle.js');
    expect(worker.status).toBe(200);
    expect(worker.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(worker.headers.get('cache-control')).toBe('no-cache');

    const bare = await fetch(server.url + '/trace-viewer', { redirect: 'manual' });
    expect(bare.status).toBe(301);
    expect(bare.headers.get('location')).toBe('/trace-viewer/');
    for (const path of ['/trace-viewer/nope.js', '/trace-viewer/%2e%2e/package.json', '/trace-viewer/..%2f..%2fpackage.json']) {
      expect((await fetch(server.url + path)).status, path).toBe(404);
    }

    const dashboard = (await fetch(server.url + '/sign-in')).headers.get('content-security-policy')!;
    expect(dashboard).toContain("connect-src 'self';");
    expect(dashboard).not.toContain('frame-src');
  });

  it('no CORS grant for an unlisted origin', async () => {
    const res = await fetch(server.url + '/api/v1/projects', { method: 'OPTIONS', headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' } });
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });
});
