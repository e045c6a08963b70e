/**
 * EventBridgePublisher against a local endpoint speaking EventBridge's wire format
 * (AWS JSON 1.1, X-Amz-Target AWSEvents.PutEvents), with partial failures to prove that
 * only the failed entries are sent again.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { silentLogger } from '../../packages/core/src/ports/logger.ts';
import { EventRejectedError } from '../../packages/core/src/events/validate.ts';
import { EventBridgePublisher, EventPublishError } from '../../packages/functions/src/aws/events/eventbridge-publisher.ts';
import { startAwsDouble, type Responder } from './support/aws-double.ts';
import { testFailedFor, uuid } from './support/fixtures.ts';

let double: Awaited<ReturnType<typeof startAwsDouble>> | undefined;
afterEach(async () => double?.close());

const ok: Responder = (req) => ({ body: { FailedEntryCount: 0, Entries: req.body.Entries.map(() => ({ EventId: uuid() })) } });

async function publisherWith(responder: Responder, extra: { maxAttempts?: number } = {}) {
  double = await startAwsDouble(responder);
  const sleeps: number[] = [];
  const publisher = new EventBridgePublisher({
    client: new EventBridgeClient(double.clientConfig), busName: 'svc-events', logger: silentLogger,
    sleep: async (ms) => void sleeps.push(ms), ...extra,
  });
  return { publisher, sleeps, requests: double.requests };
}

const events = (n: number) => Array.from({ length: n }, (_, i) => testFailedFor({ orgId: 'org-1', testId: uuid() }, `failure ${i}`));

describe('EventBridge PutEvents adapter', () => {
  it('sends the documented request: target, content type, signed, entries with the envelope as Detail', async () => {
    const { publisher, requests } = await publisherWith(ok);
    const [event] = events(1);
    await publisher.publish(event);
    expect(requests).toHaveLength(1);
    const [req] = requests;
    expect(req.target).toBe('AWSEvents.PutEvents');
    expect(req.headers['content-type']).toBe('application/x-amz-json-1.1');
    expect(String(req.headers.authorization)).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDLOCAL\/\d{8}\/eu-west-1\/events\/aws4_request/);
    expect(req.body.Entries).toHaveLength(1);
    const entry = req.body.Entries[0];
    expect(entry).toMatchObject({ EventBusName: 'svc-events', Source: 'svc.browser-worker', DetailType: 'test.failed', Resources: [] });
    expect(JSON.parse(entry.Detail)).toEqual(event);
    expect(entry.Time).toBe(Date.parse(event.timestamp) / 1000); // epoch seconds in the JSON protocols
  });

  it('batches at most 10 entries per request', async () => {
    const { publisher, requests } = await publisherWith(ok);
    await publisher.publishBatch(events(23));
    expect(requests.map((r) => r.body.Entries.length)).toEqual([10, 10, 3]);
  });

  it('batches by size too: entries of one request stay within 256 KB', async () => {
    const { publisher, requests } = await publisherWith(ok);
    const big = events(3).map((e) => ({ ...e, payload: { ...e.payload, notes: 'x'.repeat(100_000) } }));
    await publisher.publishBatch(big);
    expect(requests.map((r) => r.body.Entries.length)).toEqual([2, 1]);
  });

  it('retries only the entries a response reports as failed, with back-off', async () => {
    let call = 0;
    const { publisher, requests, sleeps } = await publisherWith((req) => {
      call++;
      if (call === 1) {
        return {
          body: {
            FailedEntryCount: 2,
            Entries: req.body.Entries.map((_: unknown, i: number) => (i === 1 || i === 3 ? { ErrorCode: 'ThrottlingException', ErrorMessage: 'Rate exceeded' } : { EventId: uuid() })),
          },
        };
      }
      return ok(req);
    });
    const batch = events(5);
    await publisher.publishBatch(batch);
    expect(requests).toHaveLength(2);
    expect(requests[1].body.Entries.map((e: { Detail: string }) => JSON.parse(e.Detail).event_id)).toEqual([batch[1].event_id, batch[3].event_id]);
    expect(sleeps).toEqual([100]);
  });

  it('gives up after maxAttempts and names the events that failed', async () => {
    const { publisher, requests, sleeps } = await publisherWith(
      (req) => ({ body: { FailedEntryCount: 1, Entries: req.body.Entries.map((_: unknown, i: number) => (i === 0 ? { ErrorCode: 'InternalFailure', ErrorMessage: 'oops' } : { EventId: uuid() })) } }),
      { maxAttempts: 4 },
    );
    const batch = events(2);
    const err = await publisher.publishBatch(batch).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EventPublishError);
    expect((err as EventPublishError).failures).toEqual([{ event_id: batch[0].event_id, errorCode: 'InternalFailure', errorMessage: 'oops' }]);
    expect(requests.map((r) => r.body.Entries.length)).toEqual([2, 1, 1, 1]);
    expect(sleeps).toEqual([100, 200, 400]);
  });

  it('rejects bad events before sending anything', async () => {
    const { publisher, requests } = await publisherWith(ok);
    const [e] = events(1);
    await expect(publisher.publish({ ...e, payload: { ...e.payload, notes: 'x'.repeat(300_000) } })).rejects.toBeInstanceOf(EventRejectedError);
    await expect(publisher.publish({ ...e, tenant_id: '' })).rejects.toMatchObject({ reason: 'invalid_envelope' });
    expect(requests).toEqual([]);
  });
});
