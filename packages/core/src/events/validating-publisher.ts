import type { EventEnvelope } from '../contracts/events.ts';
import type { EventPublisher } from '../ports/events.ts';
import { checkEvent } from './validate.ts';

/**
 * The one publishing path: every event is checked (envelope, known type, payload
 * schema, 256 KB) before it reaches any transport, so a bad event is rejected at publish
 * — where the producer can see the error — instead of failing in every consumer. Wraps
 * whatever transport is configured, including `skippingPublisher` when there is none.
 */
export function validatingPublisher(inner: EventPublisher, opts: { onPublished?: (event: EventEnvelope) => void } = {}): EventPublisher {
  return {
    async publish(event) {
      const checked = checkEvent(event);
      await inner.publish(checked);
      opts.onPublished?.(checked);
    },
  };
}
