import type { EventEnvelope } from '../contracts/events.ts';

/**
 * Ports of the event machinery. core holds the logic (routing, consumer runner, dead
 * letters, clustering); packages/functions implements these twice — in-process for the
 * local runtime, SQS/EventBridge/Kafka on AWS.
 */

/** One message as a transport hands it to a consumer. */
export interface InboundRecord {
  /** The message value as received: the envelope's JSON text (a bus wrapper is removed first). */
  value: string;
  /** Topic the message came from (Kafka); derived from the event type when absent. */
  topic?: string;
  /** Kafka partition; 0 for queue transports, which have none. */
  partition?: number;
  /** Kafka offset, or the queue's message id. */
  offset?: number | string;
  /** Message key (Kafka) — the partition key; derived from the event when absent. */
  key?: string | null;
  /** Deliveries of this message so far, this one included (SQS ApproximateReceiveCount). */
  receiveCount?: number;
}

/** A message received from a queue; `receipt` acknowledges (deletes) it. */
export interface QueueMessage {
  id: string;
  receipt: string;
  body: string;
  receiveCount: number;
}

/**
 * A queue with SQS semantics: a received message is invisible for the visibility
 * timeout and comes back unless acknowledged; after maxReceiveCount receives it moves
 * to the queue's dead-letter queue.
 */
export interface MessageQueue {
  readonly name: string;
  send(body: string, opts?: { delaySeconds?: number }): Promise<string>;
  /** Up to `max` (≤ 10) messages, waiting up to `waitMs` for the first. */
  receive(opts?: { max?: number; waitMs?: number; signal?: AbortSignal }): Promise<QueueMessage[]>;
  /** Manual acknowledgement after successful processing. Returns false for a stale receipt. */
  ack(receipt: string): Promise<boolean>;
  /** Messages waiting (visible or delayed) and in flight: the consumer lag. */
  depth(): Promise<{ waiting: number; inFlight: number }>;
}

/** Publishes an event after a delay: the dead-letter processor's back-off (2^n seconds). */
export interface RetryScheduler {
  schedule(event: EventEnvelope, delaySeconds: number): Promise<void>;
}

export type AlertSeverity = 'critical' | 'warning';

export interface Alert {
  name: string;
  severity: AlertSeverity;
  summary: string;
  tenant_id?: string;
  details: Record<string, unknown>;
}

/** Where alerts go: a log line plus a metric locally, CloudWatch (via the metric) on AWS. */
export interface AlertSink {
  raise(alert: Alert): Promise<void>;
}
