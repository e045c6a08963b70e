/**
 * GET /metrics through the real route machinery (mountRoute), with the local event system's collectors feeding consumer lag
 * and dead-letter depth.
 */
import { describe, expect, it } from 'vitest';
import { Hono } from 'hono';
import { silentLogger } from '../../packages/core/src/ports/logger.ts';
import { randomBytes } from 'node:crypto';
import { envelopeCipher } from '../../packages/core/src/secrets/envelope.ts';
import { localDataKeys } from '../../packages/functions/src/secrets/local-data-keys.ts';
import { buildAppDeps } from '../../packages/functions/src/shared/deps.ts';
import { defaultApiConfig } from '../../packages/functions/src/api/deps.ts';
import type { ApiEnv } from '../../packages/functions/src/api/env.ts';
import { handleError } from '../../packages/functions/src/api/errors.ts';
import { metricsRoutes } from '../../packages/functions/src/api/routes/metrics.ts';
import { createLocalEvents } from '../../packages/functions/src/events/local-events.ts';
import { FileTable } from '../../packages/functions/src/local/file-table.ts';
import { seedTenant, testFailedFor } from './support/fixtures.ts';

async function app(metricsToken?: string) {
  const table = new FileTable();
  const events = createLocalEvents({ table, logger: silentLogger });
  const deps = await buildAppDeps({
    // A real key: the app seals the issuer's signing key as it starts.
    table, cipher: envelopeCipher(localDataKeys(randomBytes(32))), publisher: events.bus, logger: silentLogger, api: defaultApiConfig,
    issuer: { issuer: 'urn:svc:test', audience: 'svc' }, healthChecks: {},
    metrics: events.metrics.registry, metricsToken,
  });
  const hono = new Hono<ApiEnv>();
  const registry: never[] = [];
  metricsRoutes(hono, deps, registry);
  hono.onError(handleError(silentLogger));
  return { hono, events, table, registry };
}

describe('GET /metrics', () => {
  it('serves the Prometheus text format with spec metrics, consumer lag and DLQ depth', async () => {
    const { hono, events, table, registry } = await app();
    expect(registry).toHaveLength(1);
    const t = await seedTenant(table);
    events.metrics.llmTokens.inc({ model: 'claude-haiku' }, 1500);
    events.metrics.browserPoolActiveSessions.set({}, 3);
    await events.bus.publish(testFailedFor(t)); // queued, not yet consumed: lag
    const res = await hono.request('/metrics');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    const text = await res.text();
    expect(text).toContain('llm_tokens_total{model="claude-haiku"} 1500');
    expect(text).toContain('browser_pool_active_sessions 3');
    expect(text).toContain('# TYPE knowledge_search_latency_seconds histogram');
    expect(text).toContain('svc_events_published_total{event_type="test.failed"} 1');
    expect(text).toContain('svc_consumer_lag{consumer="api"} 1');
    expect(text).toContain('svc_consumer_lag{consumer="stream-analytics"} 1');
    expect(text).toContain('svc_dlq_depth{queue="parked"} 0');
    await events.drain();
    expect(await (await hono.request('/metrics')).text()).toContain('svc_consumer_lag{consumer="api"} 0');
  });

  it('each running consumer reports a heartbeat (svc_worker_last_heartbeat_seconds) after every poll; a worker that does not run reports none', async () => {
    const { hono, events } = await app();
    expect(await (await hono.request('/metrics')).text()).not.toContain('svc_worker_last_heartbeat_seconds{');
    const before = Math.floor(Date.now() / 1000);
    events.start();
    try {
      const beats = async () => {
        const text = await (await hono.request('/metrics')).text();
        return Object.fromEntries([...text.matchAll(/^svc_worker_last_heartbeat_seconds\{worker="([^"]+)"\} (\d+)$/gm)].map((m) => [m[1], Number(m[2])]));
      };
      await expect.poll(async () => Object.keys(await beats()).sort(), { timeout: 10_000 }).toEqual(['api', 'dlq-processor', 'stream-analytics']);
      for (const at of Object.values(await beats())) expect(at).toBeGreaterThanOrEqual(before);
    } finally {
      await events.stop();
    }
  });

  it('requires the bearer token when one is configured', async () => {
    const { hono } = await app('scrape-secret');
    expect((await hono.request('/metrics')).status).toBe(401);
    expect((await hono.request('/metrics', { headers: { authorization: 'Bearer nope' } })).status).toBe(401);
    expect((await hono.request('/metrics', { headers: { authorization: 'Bearer scrape-secret' } })).status).toBe(200);
  });
});
