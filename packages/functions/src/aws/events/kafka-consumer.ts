import type { Consumer, EachBatchPayload, Kafka, KafkaMessage } from 'kafkajs';
import { topicFor } from '@svc/core/contracts/events';
import type { Logger } from '@svc/core/ports/logger';
import type { ConsumerRunner } from '@svc/core/events/consumer';
import type { InboundRecord } from '@svc/core/events/ports';
import { consumerGroupOf, routeOf, type ConsumerName } from '@svc/core/events/routing';

/**
 * A consumer on a Kafka-protocol broker, with the spec's settings (rule 7): one group
 * per consumer, starting from the earliest offset, manual commit after successful
 * processing, at most 10 records between commits. A record the runner dealt with
 * (processed, duplicate, dead-lettered) advances the offset; if the runner rejects (the
 * dead letter itself could not be published), the batch stops uncommitted and kafkajs
 * fetches again from the last committed offset.
 */
export const RECORDS_PER_POLL = 10;

/** The record a consumer sees for a Kafka message (offsets and keys as the dlq payload wants them). */
export function recordFromKafka(topic: string, partition: number, message: Pick<KafkaMessage, 'key' | 'value' | 'offset'>): InboundRecord {
  return {
    value: message.value ? message.value.toString('utf8') : '',
    topic,
    partition,
    offset: Number.isSafeInteger(Number(message.offset)) ? Number(message.offset) : message.offset,
    key: message.key ? message.key.toString('utf8') : null,
  };
}

/** Processes one fetched batch in chunks of 10, committing after each chunk. */
export async function processKafkaBatch(
  runner: ConsumerRunner,
  consumer: Pick<Consumer, 'commitOffsets'>,
  payload: Pick<EachBatchPayload, 'batch' | 'resolveOffset' | 'heartbeat' | 'isRunning' | 'isStale'>,
): Promise<void> {
  const { batch } = payload;
  for (let i = 0; i < batch.messages.length; i += RECORDS_PER_POLL) {
    if (!payload.isRunning() || payload.isStale()) return;
    const chunk = batch.messages.slice(i, i + RECORDS_PER_POLL);
    for (const message of chunk) {
      await runner.process(recordFromKafka(batch.topic, batch.partition, message));
      payload.resolveOffset(message.offset);
    }
    const next = (BigInt(chunk[chunk.length - 1].offset) + 1n).toString();
    await consumer.commitOffsets([{ topic: batch.topic, partition: batch.partition, offset: next }]);
    await payload.heartbeat();
  }
}

/** Subscribes a consumer's group to its topics and runs it until `consumer.disconnect()`. */
export async function runKafkaConsumer(opts: { kafka: Kafka; name: ConsumerName; runner: ConsumerRunner; logger: Logger }): Promise<Consumer> {
  const consumer = opts.kafka.consumer({ groupId: consumerGroupOf(opts.name) });
  await consumer.connect();
  await consumer.subscribe({ topics: routeOf(opts.name).handles.map(topicFor), fromBeginning: true });
  await consumer.run({
    autoCommit: false,
    eachBatchAutoResolve: false,
    eachBatch: async (payload) => {
      try {
        await processKafkaBatch(opts.runner, consumer, payload);
      } catch (err) {
        opts.logger.error('kafka batch stopped; it will be fetched again', { consumer: opts.name, topic: payload.batch.topic, error: (err as Error).message });
        throw err;
      }
    },
  });
  return consumer;
}
