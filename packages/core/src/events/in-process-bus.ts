import type { EventEnvelope } from '../contracts/events.ts';
import type { EventPublisher } from '../ports/events.ts';
import type { Logger } from '../ports/logger.ts';

export type EventHandler = (event: EventEnvelope) => void | Promise<void>;

/**
 * The local runtime's bus: publish hands the event to every subscriber in-process.
 * Subscribers' failures are logged and never fail the publishing request.
 */
export class InProcessBus implements EventPublisher {
  private readonly handlers = new Set<EventHandler>();
  constructor(private readonly logger: Logger) {}

  subscribe(handler: EventHandler): () => void {
    this.handlers.add(handler);
    return () => this.handlers.delete(handler);
  }

  async publish(event: EventEnvelope): Promise<void> {
    this.logger.debug('event published', { event_type: event.event_type, event_id: event.event_id, tenant_id: event.tenant_id });
    for (const handler of this.handlers) {
      try {
        await handler(event);
      } catch (err) {
        this.logger.error('event subscriber failed', { event_type: event.event_type, event_id: event.event_id, error: (err as Error).message });
      }
    }
  }
}

/** With no bus configured, publishing is skipped with a debug log (spec: emission rule 6). */
export function skippingPublisher(logger: Logger): EventPublisher {
  return {
    async publish(event) {
      logger.debug('no event bus configured; event not published', { event_type: event.event_type, event_id: event.event_id });
    },
  };
}
