import {
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { MessageQueue, QueueMessage } from '@svc/core/events/ports';

/**
 * The MessageQueue port over Amazon SQS: what a long-running poller (a container
 * deployment, the CLI against a cloud stack) uses instead of the Lambda event source,
 * and what the metrics collector asks for queue depth (consumer lag, DLQ depth).
 * Redrive after 3 receives is the queue's own RedrivePolicy (infra/events.ts).
 */
export class SqsQueue implements MessageQueue {
  constructor(
    private readonly client: SQSClient,
    readonly url: string,
    readonly name: string = url.slice(url.lastIndexOf('/') + 1),
  ) {}

  async send(body: string, opts: { delaySeconds?: number } = {}): Promise<string> {
    const res = await this.client.send(
      new SendMessageCommand({ QueueUrl: this.url, MessageBody: body, ...(opts.delaySeconds ? { DelaySeconds: clampDelay(opts.delaySeconds) } : {}) }),
    );
    return res.MessageId ?? '';
  }

  async receive(opts: { max?: number; waitMs?: number; signal?: AbortSignal } = {}): Promise<QueueMessage[]> {
    const res = await this.client.send(
      new ReceiveMessageCommand({
        QueueUrl: this.url,
        MaxNumberOfMessages: Math.max(1, Math.min(opts.max ?? 10, 10)),
        WaitTimeSeconds: Math.min(20, Math.ceil((opts.waitMs ?? 0) / 1000)),
        MessageSystemAttributeNames: ['ApproximateReceiveCount'],
      }),
      { abortSignal: opts.signal },
    );
    return (res.Messages ?? []).map((m) => ({
      id: m.MessageId ?? '',
      receipt: m.ReceiptHandle ?? '',
      body: m.Body ?? '',
      receiveCount: Number(m.Attributes?.ApproximateReceiveCount ?? 1),
    }));
  }

  async ack(receipt: string): Promise<boolean> {
    await this.client.send(new DeleteMessageCommand({ QueueUrl: this.url, ReceiptHandle: receipt }));
    return true;
  }

  async depth(): Promise<{ waiting: number; inFlight: number }> {
    const res = await this.client.send(
      new GetQueueAttributesCommand({
        QueueUrl: this.url,
        AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible', 'ApproximateNumberOfMessagesDelayed'],
      }),
    );
    const a = res.Attributes ?? {};
    return {
      waiting: Number(a.ApproximateNumberOfMessages ?? 0) + Number(a.ApproximateNumberOfMessagesDelayed ?? 0),
      inFlight: Number(a.ApproximateNumberOfMessagesNotVisible ?? 0),
    };
  }
}

/** SQS accepts DelaySeconds 0..900. */
export const clampDelay = (s: number) => Math.max(0, Math.min(900, Math.ceil(s)));
