/**
 * The knowledge worker as deployed on AWS: the SQS-triggered consumer function
 * (consumer-handler's runner for SVC_CONSUMER=knowledge-worker) with its blobs in S3 (the S3
 * double, speaking S3's wire format). An upload the API put in the bucket is analysed, the
 * analysis kept in the bucket, the upload deleted, and codebase.analyzed published.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '@svc/core/ports/logger';
import { toBusEvent } from '@svc/core/events/bus-event';
import { codebaseIngested, eventSources } from '@svc/core/events/producers';
import { ingestionBlobKeys } from '@svc/core/knowledge/blob-keys';
import { createStore } from '@svc/core/store/index';
import { systemClock } from '@svc/core/ports/clock';
import { FileTable } from '../../packages/functions/src/local/file-table.ts';
import { S3Blobs } from '../../packages/functions/src/aws/s3-blobs.ts';
import { buildRunner, consumerDefinition } from '../../packages/functions/src/aws/events/consumer-handler.ts';
import { createSqsConsumerHandler, type SqsRecord } from '../../packages/functions/src/aws/events/sqs-handler.ts';
import { startS3Double, type S3Double } from '../support/s3-double.ts';
import { RecordingPublisher, seedTenant } from '../events/support/fixtures.ts';

const BUCKET = 'svc-artifacts';
let s3: S3Double;
beforeAll(async () => {
  s3 = await startS3Double({ buckets: [BUCKET] });
});
afterAll(async () => {
  await s3?.stop();
});

const sqsRecord = (body: string): SqsRecord => ({
  messageId: crypto.randomUUID(), receiptHandle: `rh-${crypto.randomUUID()}`, body,
  attributes: { ApproximateReceiveCount: '1', SentTimestamp: String(Date.now()) },
  eventSource: 'aws:sqs', eventSourceARN: 'arn:aws:sqs:eu-west-1:123456789012:svc-knowledge-worker',
});

describe('the knowledge worker function', () => {
  it('analyses an upload from S3, keeps the analysis in S3 and publishes codebase.analyzed', async () => {
    const table = new FileTable();
    const { orgId, projectId } = await seedTenant(table);
    const store = createStore(table, systemClock);
    const blobs = new S3Blobs({ bucket: BUCKET, client: s3.client() });
    // What the API does on POST /api/analyze with async: the upload, the record, the event.
    const id = store.codebaseIngestions.newId();
    await blobs.put(ingestionBlobKeys.files(orgId, id), JSON.stringify([{ path: 'api.js', content: "const app = require('express')();\napp.delete('/api/carts/:id', h);\n" }]), 'application/json');
    await store.codebaseIngestions.create(orgId, {
      id, project_id: projectId, status: 'queued', source: { kind: 'inline', file_count: 1 }, codebase_path: 'inline upload', commit_sha: null, include_content: false,
      created_at: new Date().toISOString(), created_by: 'api_key:k', finished_at: null, error: null, summary: null, surface_count: null, partial: null,
    });
    const event = codebaseIngested({ source: eventSources.api, tenant_id: orgId }, { project_id: projectId, codebase_path: 'inline upload', ingestion_id: id });

    const publisher = new RecordingPublisher();
    const runner = buildRunner('knowledge-worker', { table, publisher, logger: silentLogger, alerts: { raise: async () => {} }, knowledge: { blobs } });
    const handler = createSqsConsumerHandler(runner, silentLogger);
    expect(await handler({ Records: [sqsRecord(JSON.stringify(toBusEvent(event)))] })).toEqual({ batchItemFailures: [] });

    expect(await store.codebaseIngestions.get(orgId, id)).toMatchObject({ status: 'analyzed', surface_count: 1 });
    expect(publisher.ofType('codebase.analyzed')).toEqual([expect.objectContaining({ source: 'svc.knowledge-worker', payload: expect.objectContaining({ ingestion_id: id }) })]);
    expect(s3.objects().has(ingestionBlobKeys.files(orgId, id))).toBe(false);
    const kept = JSON.parse(s3.objects().get(ingestionBlobKeys.analysis(orgId, id))!.body.toString('utf8'));
    expect(kept.surfaces).toEqual([expect.objectContaining({ method: 'DELETE', path: '/api/carts/:id' })]);
  });

  it('refuses to start without its bucket, naming what it needs', () => {
    expect(() => consumerDefinition('knowledge-worker', { alerts: { raise: async () => {} } })).toThrow(/SVC_BUCKET_NAME/);
  });
});
