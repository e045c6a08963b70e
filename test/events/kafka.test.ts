/**
 * The Kafka option: a real kafkajs producer with the spec's settings against a fake
 * broker that decodes what arrives on the wire (acks, producer id, gzip, keys, headers),
 * and the consumer side's record mapping and commit-after-processing loop.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Kafka, logLevel } from 'kafkajs';
import { silentLogger } from '../../packages/core/src/ports/logger.ts';
import { partitionKeyFor } from '../../packages/core/src/contracts/events.ts';
import { ConsumerRunner } from '../../packages/core/src/events/consumer.ts';
import { apiConsumer, listActivity } from '../../packages/core/src/events/api-consumer.ts';
import { KafkaPublisher, kafkaProducerConfig, toKafkaMessage } from '../../packages/functions/src/aws/events/kafka-publisher.ts';
import { processKafkaBatch, recordFromKafka } from '../../packages/functions/src/aws/events/kafka-consumer.ts';
import { FileTable } from '../../packages/functions/src/local/file-table.ts';
import { startFakeKafkaBroker } from './support/fake-kafka-broker.ts';
import { RecordingPublisher, seedTenant, testCreatedFor, testFailedFor, uuid } from './support/fixtures.ts';

let broker: Awaited<ReturnType<typeof startFakeKafkaBroker>> | undefined;
let publisher: KafkaPublisher | undefined;
afterEach(async () => {
  await publisher?.close();
  await broker?.close();
  publisher = undefined;
  broker = undefined;
});

describe('Kafka producer (spec rule 6: acks all, idempotent, gzip)', () => {
  it('maps an event to key, value and the three spec headers', () => {
    const e = { ...testFailedFor({ orgId: 'org-1', testId: uuid() }), payload: { test_id: uuid(), test_suite_id: 'suite-1', failure_details: {} } };
    expect(toKafkaMessage(e)).toEqual({
      key: 'suite-1', value: JSON.stringify(e), headers: { correlation_id: e.correlation_id, tenant_id: 'org-1', source: 'svc.browser-worker' }, timestamp: String(Date.parse(e.timestamp)),
    });
    expect(kafkaProducerConfig).toMatchObject({ idempotent: true, maxInFlightRequests: 1 });
  });

  it('puts on the wire: topic svc.<type>, acks -1, a producer id, gzip batches, keys and headers', async () => {
    broker = await startFakeKafkaBroker();
    const kafka = new Kafka({ clientId: 'svc-test', brokers: [broker.broker], logLevel: logLevel.NOTHING });
    publisher = new KafkaPublisher(kafka.producer(kafkaProducerConfig));
    const t = { orgId: 'org-1', testId: uuid() };
    const events = [testCreatedFor({ ...t, projectId: uuid() }), testFailedFor(t), testFailedFor(t)];
    await publisher.publishBatch(events);
    await publisher.publish(testFailedFor(t));

    expect(broker.apiCalls.some((c) => c.apiKey === 22)).toBe(true); // InitProducerId: idempotence
    const batches = broker.produced;
    expect(new Set(batches.map((b) => b.topic))).toEqual(new Set(['svc.test.created', 'svc.test.failed']));
    for (const b of batches) {
      expect(b.acks).toBe(-1);
      expect(b.compression).toBe(1); // gzip
      expect(Number(b.producerId)).toBeGreaterThanOrEqual(4000);
    }
    const records = batches.flatMap((b) => b.records);
    expect(records).toHaveLength(4);
    const sent = records.map((r) => JSON.parse(r.value));
    expect(sent.map((e) => e.event_id).sort()).toEqual([...events.map((e) => e.event_id), sent.at(-1).event_id].sort());
    for (const r of records) {
      const e = JSON.parse(r.value);
      expect(r.key).toBe(partitionKeyFor(e));
      expect(r.headers).toEqual({ correlation_id: e.correlation_id, tenant_id: 'org-1', source: e.source });
    }
    // Idempotent sequences: successive batches on one partition continue the sequence.
    const failedBatches = batches.filter((b) => b.topic === 'svc.test.failed' && b.partition === batches.find((x) => x.topic === 'svc.test.failed')!.partition);
    expect(failedBatches.map((b) => b.firstSequence)).toEqual([0, 2]);
  });

  it('rejects a bad event before connecting', async () => {
    broker = await startFakeKafkaBroker();
    const kafka = new Kafka({ clientId: 'svc-test', brokers: [broker.broker], logLevel: logLevel.NOTHING });
    publisher = new KafkaPublisher(kafka.producer(kafkaProducerConfig));
    const e = testFailedFor({ orgId: 'o', testId: uuid() });
    await expect(publisher.publish({ ...e, event_type: 'nope' as never })).rejects.toMatchObject({ reason: 'unknown_type' });
    expect(broker.apiCalls).toEqual([]);
  });
});

describe('Kafka consumer (spec rule 7: manual commit after processing, 10 per poll)', () => {
  it('maps a Kafka message to the record a dead letter needs', () => {
    expect(recordFromKafka('svc.test.failed', 4, { key: Buffer.from('suite-1'), value: Buffer.from('{"x":1}'), offset: '1234' })).toEqual({
      value: '{"x":1}', topic: 'svc.test.failed', partition: 4, offset: 1234, key: 'suite-1',
    });
    expect(recordFromKafka('t', 0, { key: null, value: null, offset: '99999999999999999999' })).toMatchObject({ key: null, value: '', offset: '99999999999999999999' });
  });

  it('processes in chunks of 10 and commits the next offset after each; stops uncommitted when the runner rejects', async () => {
    const table = new FileTable();
    const t = await seedTenant(table);
    const pub = new RecordingPublisher();
    const runner = new ConsumerRunner(apiConsumer(), { table, publisher: pub, logger: silentLogger, clock: { now: () => new Date() } });
    const commits: string[] = [];
    const resolved: string[] = [];
    const messages = Array.from({ length: 23 }, (_, i) => ({ key: Buffer.from(t.orgId), value: Buffer.from(JSON.stringify(testCreatedFor(t))), offset: String(100 + i) }));
    const payload = (msgs: typeof messages) => ({
      batch: { topic: 'svc.test.created', partition: 2, messages: msgs } as any,
      resolveOffset: (o: string) => void resolved.push(o),
      heartbeat: async () => {},
      isRunning: () => true,
      isStale: () => false,
    });
    await processKafkaBatch(runner, { commitOffsets: async (o: any) => void commits.push(o[0].offset) }, payload(messages));
    expect(commits).toEqual(['110', '120', '123']);
    expect(resolved).toHaveLength(23);
    expect(await listActivity({ table }, t.orgId, 100)).toHaveLength(23);

    // A record whose dead letter cannot be published stops the batch before its commit.
    const other = { key: null, value: Buffer.from(JSON.stringify(testCreatedFor({ ...t, orgId: uuid() }))), offset: '200' };
    pub.failNext = 1;
    commits.length = 0;
    await expect(processKafkaBatch(runner, { commitOffsets: async (o: any) => void commits.push(o[0].offset) }, payload([other as any]))).rejects.toThrow(/bus unavailable/);
    expect(commits).toEqual([]);
  });
});
