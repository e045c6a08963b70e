import type { EventEnvelope } from '../contracts/events.ts';

/**
 * Publishing of svc.* domain events. With no bus configured the runtime binds
 * `skippingPublisher`, which logs at debug level and drops the event (spec rule 6).
 */
export interface EventPublisher {
  publish(event: EventEnvelope): Promise<void>;
}
