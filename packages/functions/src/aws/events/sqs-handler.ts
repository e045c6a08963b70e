import type { EventPublisher } from '@svc/core/ports/events';
import type { Logger } from '@svc/core/ports/logger';
import { envelopeText } from '@svc/core/events/bus-event';
import type { ConsumerRunner } from '@svc/core/events/consumer';
import type { InboundRecord } from '@svc/core/events/ports';
import { checkEvent } from '@svc/core/events/validate';

/** The parts of a Lambda SQS event record the consumers use (aws-lambda's SQSRecord). */
export interface SqsRecord {
  messageId: string;
  receiptHandle: string;
  body: string;
  attributes: { ApproximateReceiveCount?: string; SentTimestamp?: string; [k: string]: string | undefined };
  eventSource?: string;
  eventSourceARN?: string;
}
export interface SqsEvent {
  Records: SqsRecord[];
}
/** Partial batch response (event source mapping with ReportBatchItemFailures). */
export interface SqsBatchResponse {
  batchItemFailures: { itemIdentifier: string }[];
}

/** What a consumer sees for an SQS record: the envelope (EventBridge's wrapper removed). */
export function recordFromSqs(r: SqsRecord): InboundRecord {
  return { value: envelopeText(r.body), partition: 0, offset: r.messageId, receiveCount: Number(r.attributes.ApproximateReceiveCount ?? 1) };
}

/**
 * Lambda handler of a consumer queue (batch size 10, ReportBatchItemFailures). Records
 * are processed in order; one the runner dealt with — processed, duplicate, or
 * dead-lettered — is acknowledged by leaving it out of batchItemFailures, so Lambda
 * deletes it. Only a record whose dead letter could not even be published is reported
 * failed: SQS redelivers it, and after 3 receives moves it to the queue's DLQ.
 */
export function createSqsConsumerHandler(runner: ConsumerRunner, logger: Logger) {
  return async (event: SqsEvent): Promise<SqsBatchResponse> => {
    const batchItemFailures: SqsBatchResponse['batchItemFailures'] = [];
    for (const record of event.Records) {
      try {
        await runner.process(recordFromSqs(record));
      } catch (err) {
        logger.error('record not processed; SQS will redeliver it', { message_id: record.messageId, error: (err as Error).message });
        batchItemFailures.push({ itemIdentifier: record.messageId });
      }
    }
    return { batchItemFailures };
  };
}

/**
 * Lambda handler of the retry queue: each message is a dead letter's original event,
 * due now (SQS held it for its DelaySeconds); it goes back on the bus, and from there to
 * the consumer that failed on it.
 */
export function createRepublishHandler(publisher: EventPublisher, logger: Logger) {
  return async (event: SqsEvent): Promise<SqsBatchResponse> => {
    const batchItemFailures: SqsBatchResponse['batchItemFailures'] = [];
    for (const record of event.Records) {
      try {
        await publisher.publish(checkEvent(envelopeText(record.body)));
      } catch (err) {
        logger.error('republish failed', { message_id: record.messageId, error: (err as Error).message });
        batchItemFailures.push({ itemIdentifier: record.messageId });
      }
    }
    return { batchItemFailures };
  };
}
