import { CompressionTypes, type Message, type Producer, type ProducerConfig } from 'kafkajs';
import { partitionKeyFor, topicFor, type EventEnvelope } from '@svc/core/contracts/events';
import type { EventPublisher } from '@svc/core/ports/events';
import { checkEvent } from '@svc/core/events/validate';

/**
 * Publishing to a Kafka-protocol broker (MSK, or a team's own Kafka) — the spec's
 * transport, as an alternative to EventBridge. Producer settings per emission rule 6:
 * acknowledgement from all in-sync replicas (acks -1), idempotent (the broker drops
 * retried duplicates by producer id and sequence), gzip compression. Each event goes to
 * `svc.<event_type>`, keyed by its partition key (so one suite's or one test's events
 * stay in order on one partition), with the correlation_id, tenant_id and source
 * headers the spec lists.
 */

/** kafkajs producer config for the spec's settings. One in-flight request keeps idempotent ordering strict. */
export const kafkaProducerConfig: ProducerConfig = { idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: false };

/** Send options of every produce request. */
export const kafkaSendOptions = { acks: -1, compression: CompressionTypes.GZIP } as const;

/** The Kafka message for an event: key, JSON value, spec headers, producer timestamp. */
export function toKafkaMessage(event: EventEnvelope): Message {
  return {
    key: partitionKeyFor(event),
    value: JSON.stringify(event),
    headers: { correlation_id: event.correlation_id, tenant_id: event.tenant_id, source: event.source },
    timestamp: String(Date.parse(event.timestamp)),
  };
}

/**
 * EventPublisher over a kafkajs producer made with `kafka.producer(kafkaProducerConfig)`.
 * Connects on first use; `publishBatch` sends many events in one request per topic.
 */
export class KafkaPublisher implements EventPublisher {
  private connected?: Promise<void>;

  constructor(private readonly producer: Producer) {}

  async publish(event: EventEnvelope): Promise<void> {
    await this.publishBatch([event]);
  }

  async publishBatch(events: EventEnvelope[]): Promise<void> {
    const byTopic = new Map<string, Message[]>();
    for (const e of events) {
      const checked = checkEvent(e);
      const topic = topicFor(checked.event_type);
      byTopic.set(topic, [...(byTopic.get(topic) ?? []), toKafkaMessage(checked)]);
    }
    await this.connect();
    await this.producer.sendBatch({ ...kafkaSendOptions, topicMessages: [...byTopic].map(([topic, messages]) => ({ topic, messages })) });
  }

  async close(): Promise<void> {
    if (this.connected) await this.producer.disconnect();
    this.connected = undefined;
  }

  private connect(): Promise<void> {
    if (!this.connected) {
      this.connected = this.producer.connect();
      this.connected.catch(() => (this.connected = undefined));
    }
    return this.connected;
  }
}
