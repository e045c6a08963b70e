import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { EventEnvelope } from '@svc/core/contracts/events';
import type { RetryScheduler } from '@svc/core/events/ports';
import { clampDelay } from './sqs-queue.ts';

/**
 * The dlq processor's back-off on AWS: the republish is a message on the retry queue
 * with DelaySeconds = 2^retry_count, so it survives Lambda containers coming and going;
 * the retry queue's handler (createRepublishHandler) puts it back on the bus when SQS
 * makes it visible. The body is the envelope itself.
 */
export class SqsRetryScheduler implements RetryScheduler {
  constructor(
    private readonly client: SQSClient,
    private readonly retryQueueUrl: string,
  ) {}

  async schedule(event: EventEnvelope, delaySeconds: number): Promise<void> {
    await this.client.send(
      new SendMessageCommand({
        QueueUrl: this.retryQueueUrl,
        MessageBody: JSON.stringify(event),
        DelaySeconds: clampDelay(delaySeconds),
        MessageAttributes: {
          event_type: { DataType: 'String', StringValue: event.event_type },
          correlation_id: { DataType: 'String', StringValue: event.correlation_id },
        },
      }),
    );
  }
}
