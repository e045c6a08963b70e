import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startTestServer, client, type TestServer } from '../support/server.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => server?.stop());

describe('health', () => {
  it('/health and /health/ready answer without auth', async () => {
    const anon = client(server.url);
    expect((await anon.get('/health')).body).toMatchObject({ status: 'ok' });
    expect((await anon.get('/health/ready')).body).toEqual({ ready: true });
  });

  it('/api/v1/health/data-layer reports real component status', async () => {
    const res = await client(server.url, { token: server.admin.apiKey }).get('/api/v1/health/data-layer');
    expect(res.status).toBe(200);
    expect(res.body.components.database.status).toBe('ok');
    expect(res.body.components.blob_store.status).toBe('ok');
    expect(res.body.components.browser_grid.status).toBe('ok');
    expect(res.body.components.knowledge_layer).toMatchObject({ status: 'ok', detail: expect.stringMatching(/^healing memory and semantic search, embeddings \S+ \(\d+ dimensions\)$/) });
  });

  it('/health/ready turns false when the store stops answering', async () => {
    const table = server.runtime.deps.store.table;
    const original = table.health.bind(table);
    table.health = async () => ({ status: 'down', detail: 'closed' });
    try {
      const res = await client(server.url).get('/health/ready');
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ ready: false });
    } finally {
      table.health = original;
    }
  });
});

describe('metrics', () => {
  it('/metrics serves the spec metrics in Prometheus text format', async () => {
    const res = await fetch(`${server.url}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain; version=0.0.4');
    const text = await res.text();
    for (const name of ['knowledge_ecl_operations_total', 'knowledge_search_latency_seconds', 'healing_suggestions_total', 'llm_tokens_total', 'browser_pool_active_sessions']) {
      expect(text).toContain(`# TYPE ${name} `);
    }
  });
});

describe('OpenAPI', () => {
  it('serves a 3.1 document covering every API route, with resolvable refs', async () => {
    const doc = (await client(server.url).get('/api/openapi.json')).body;
    expect(doc.openapi).toBe('3.1.0');
    const documented = new Set<string>();
    for (const [path, ops] of Object.entries<Record<string, unknown>>(doc.paths)) for (const m of Object.keys(ops)) documented.add(`${m} ${path}`);
    for (const route of server.runtime.app.routeDefs) {
      const path = route.path.replace(/:([A-Za-z_]+)/g, '{$1}');
      expect(documented, `${route.method} ${path}`).toContain(`${route.method} ${path}`);
    }
    const text = JSON.stringify(doc);
    for (const [, ref] of text.matchAll(/"\$ref":"#\/([^"]+)"/g)) {
      let node: any = doc;
      for (const part of ref.split('/')) node = node?.[part.replace(/~1/g, '/').replace(/~0/g, '~')];
      expect(node, ref).toBeDefined();
    }
    const ref: string = doc.paths['/api/v1/projects'].post.requestBody.content['application/json'].schema.$ref;
    const schema = doc.components.schemas[ref.split('/').pop()!];
    expect(JSON.stringify(schema)).toContain('app_url');
    // Slack posts its slash commands form-encoded, and the document says so.
    expect(Object.keys(doc.paths['/webhooks/chat'].post.requestBody.content)).toEqual(['application/x-www-form-urlencoded']);
    // Headers a client acts on are documented: If-Match as a header parameter, ETag and Retry-After as response headers.
    const patchTest = doc.paths['/api/tests/{id}'].patch;
    expect(patchTest.parameters).toContainEqual({ name: 'If-Match', in: 'header', required: false, description: expect.stringContaining('412'), schema: { type: 'string' } });
    expect(patchTest.responses['200'].headers.ETag).toEqual({ description: expect.stringContaining('If-Match'), schema: { type: 'string' } });
    expect(doc.paths['/api/tests/{id}'].get.responses['200'].headers).toHaveProperty('ETag');
    expect(doc.paths['/api/tests/{id}/revisions/{revision}/restore'].post.parameters.map((p: { name?: string }) => p.name)).toContain('If-Match');
    expect(doc.paths['/webhooks/automation'].post.responses['409'].headers).toHaveProperty('Retry-After');
  });
});
