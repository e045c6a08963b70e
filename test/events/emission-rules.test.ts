/**
 * Every emission rule (spec "Emission rules" 1–5) fires with a schema-valid payload and
 * reaches the consumers the routing table names. Rule 1 runs through the real API
 * server; its event is fed into the local event machinery over the server's own table,
 * as the local runtime wires it. Rules 2 and 5 run through the real knowledge worker (a
 * sample repository on disk); rules 3 and 4 use the producer functions inside a stand-in
 * healer (the real healer starts browser runs), so the chains ingested → analysed and heal
 * requested → healed run end to end.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventEnvelope } from '../../packages/core/src/contracts/events.ts';
import { silentLogger } from '../../packages/core/src/ports/logger.ts';
import { checkEvent } from '../../packages/core/src/events/validate.ts';
import { apiConsumer, listActivity } from '../../packages/core/src/events/api-consumer.ts';
import { streamAnalytics } from '../../packages/core/src/events/stream-analytics.ts';
import { dlqProcessor } from '../../packages/core/src/events/dlq-processor.ts';
import type { ConsumerDefinition } from '../../packages/core/src/events/consumer.ts';
import { codebaseIngested, eventSources, healingCompleted, healingRequested, testFailed } from '../../packages/core/src/events/producers.ts';
import { createLocalEvents, type LocalEvents } from '../../packages/functions/src/events/local-events.ts';
import { knowledgeWorker } from '../../packages/core/src/knowledge/knowledge-worker.ts';
import { readAllowedFolder } from '../../packages/functions/src/intelligence/read-allowed-folder.ts';
import { reposDir } from '../intelligence/analysis/sample-repos.ts';
import { join } from 'node:path';
import { startTestServer, client, signUp, type TestServer, type Client } from '../support/server.ts';

let server: TestServer;
let member: Client;
let orgId: string;
let projectId: string;
let events: LocalEvents;
const seen: EventEnvelope[] = [];
const received: Record<string, EventEnvelope[]> = { healer: [] };

/**
 * Healer stand-in: on healing.requested, publishes healing.completed either way (rule 4).
 * The real healer starts a heal run (test/healing/heal-runs.test.ts); failed tests of a run
 * heal inside that run, so test.failed is not the healer's (docs/decisions.md).
 */
const healer: ConsumerDefinition = {
  name: 'healer',
  handlers: {
    'healing.requested': (e, ctx) => {
      received.healer.push(e);
      ctx.emit(healingCompleted(
        { source: eventSources.healer, tenant_id: e.tenant_id, correlation_id: e.correlation_id },
        { test_id: String(e.payload.test_id), success: false, healed_selector: null, confidence: 0, applied: false },
      ));
    },
  },
};

beforeAll(async () => {
  server = await startTestServer();
  const user = await signUp(server.url, 'events@example.com');
  orgId = user.orgId;
  member = client(server.url, { token: user.token, org: orgId });
  projectId = (await member.post('/api/v1/projects', { name: 'shop' })).body.id;
  events = createLocalEvents({
    table: server.runtime.deps.store.table,
    logger: silentLogger,
    consumers: [
      apiConsumer(), streamAnalytics(), dlqProcessor({ alerts: { raise: async () => {} } }), healer,
      knowledgeWorker({ blobs: server.runtime.blobs, readFolder: (path, org) => readAllowedFolder(path, [reposDir], org) }),
    ],
  });
  events.bus.subscribe((e) => void seen.push(e));
  // What runtime wiring will do: the API's publisher is the local bus.
  server.runtime.bus.subscribe((e) => events.bus.publish(e));
});
afterAll(async () => {
  await events?.stop();
  await server?.stop();
});

const ofType = (type: string) => seen.filter((e) => e.event_type === type);

describe('emission rules', () => {
  it('rule 1: POST /api/tests publishes test.created, which the API consumer records', async () => {
    const res = await member.post('/api/tests', { project_id: projectId, name: 'checkout', type: 'ui', steps: [{ type: 'goto', url: '/' }] });
    expect(res.status).toBe(201);
    await events.drain();
    const [created] = ofType('test.created');
    expect(checkEvent(created)).toEqual(created);
    expect(created.payload).toMatchObject({ test_id: res.body.id, test_name: 'checkout', test_type: 'ui', project_id: projectId, test_spec: expect.any(Object) });
    expect(created).toMatchObject({ tenant_id: orgId, source: 'svc.api' });
    const feed = await listActivity({ table: server.runtime.deps.store.table }, orgId);
    expect(feed).toMatchObject([{ event_id: created.event_id, event_type: 'test.created', refs: { test_id: res.body.id, project_id: projectId } }]);
  });

  it('rules 2 and 5: codebase.ingested reaches the knowledge worker, which publishes codebase.analyzed', async () => {
    // Another producer's event (no ingestion record): the worker reads the folder and keeps a record under the event's id.
    const ingested = codebaseIngested({ source: eventSources.api, tenant_id: orgId, correlation_id: 'ingest-1' }, { project_id: projectId, codebase_path: join(reposDir, 'fastify-api') });
    await events.bus.publish(ingested);
    await events.drain();
    const [analyzed] = ofType('codebase.analyzed');
    expect(checkEvent(analyzed)).toEqual(analyzed);
    expect(analyzed).toMatchObject({ source: 'svc.knowledge-worker', correlation_id: 'ingest-1', payload: { project_id: projectId, surface_count: 6, ingestion_id: ingested.event_id } });
    const record = await server.runtime.deps.store.codebaseIngestions.get(orgId, ingested.event_id);
    expect(record).toMatchObject({ status: 'analyzed', surface_count: 6, source: { kind: 'path' } });
    const types = (await listActivity({ table: server.runtime.deps.store.table }, orgId)).map((a) => a.event_type);
    expect(types).toEqual(expect.arrayContaining(['codebase.ingested', 'codebase.analyzed']));
  });

  it('rules 3 and 4: test.failed reaches stream analytics and the API; a heal request reaches the healer; healing.completed follows', async () => {
    const testId = (await member.post('/api/tests', { project_id: projectId, name: 'pay', type: 'ui' })).body.id;
    await events.drain();
    await events.bus.publish(testFailed({ source: eventSources.browserWorker, tenant_id: orgId, correlation_id: 'run-1' }, { test_id: testId, project_id: projectId, failure_details: { error_message: 'no element #pay', failure_type: 'selector_not_found', selector: '#pay' } }));
    await events.drain();
    expect(received.healer).toEqual([]);
    await events.bus.publish(healingRequested({ source: eventSources.api, tenant_id: orgId, correlation_id: 'run-1' }, { test_id: testId, project_id: projectId, original_selector: '#pay', error_message: 'no element #pay' }));
    await events.drain();
    expect(received.healer.map((e) => e.payload.test_id)).toEqual([testId]);
    const [healed] = ofType('healing.completed');
    expect(checkEvent(healed)).toEqual(healed);
    expect(healed).toMatchObject({ correlation_id: 'run-1', payload: { test_id: testId, success: false, applied: false } });
    const stats = await events.metrics.registry.render();
    expect(stats).toContain('svc_events_consumed_total{consumer="stream-analytics",outcome="processed"} 1');
    const feed = (await listActivity({ table: server.runtime.deps.store.table }, orgId)).map((a) => a.event_type);
    expect(feed).toEqual(expect.arrayContaining(['test.failed', 'healing.completed']));
    expect(ofType('dlq')).toEqual([]);
  });
});
