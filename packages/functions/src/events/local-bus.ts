import type { EventEnvelope } from '@svc/core/contracts/events';
import type { EventPublisher } from '@svc/core/ports/events';
import type { Logger } from '@svc/core/ports/logger';
import { toBusEvent } from '@svc/core/events/bus-event';
import { matchesPattern, validatePattern, type EventPattern } from '@svc/core/events/pattern';
import { checkEvent } from '@svc/core/events/validate';
import type { MessageQueue } from '@svc/core/events/ports';

export interface BusRule {
  name: string;
  pattern: EventPattern;
  target: MessageQueue;
}

export type BusTap = (event: EventEnvelope) => void | Promise<void>;

/**
 * The local runtime's event bus, with EventBridge semantics: publish checks the event
 * (rejecting bad ones to the producer), wraps it as EventBridge would, and puts it on the
 * queue of every rule whose pattern matches — the same patterns infra/events.ts gives
 * EventBridge. Taps (`subscribe`) see every accepted event in-process, for live views and
 * tests; a failing tap is logged and never fails the publisher.
 */
export class LocalEventBus implements EventPublisher {
  private readonly rules: BusRule[] = [];
  private readonly taps = new Set<BusTap>();

  constructor(private readonly logger: Logger, private readonly onPublished?: (event: EventEnvelope) => void) {}

  addRule(rule: BusRule): void {
    validatePattern(rule.pattern);
    if (this.rules.some((r) => r.name === rule.name)) throw new Error(`bus rule ${rule.name} exists`);
    this.rules.push(rule);
  }

  subscribe(tap: BusTap): () => void {
    this.taps.add(tap);
    return () => this.taps.delete(tap);
  }

  async publish(input: EventEnvelope): Promise<void> {
    const event = checkEvent(input);
    const busEvent = toBusEvent(event);
    const body = JSON.stringify(busEvent);
    const targets = this.rules.filter((r) => matchesPattern(r.pattern, busEvent));
    await Promise.all(targets.map((r) => r.target.send(body)));
    this.logger.debug('event published', { event_type: event.event_type, event_id: event.event_id, rules: targets.map((r) => r.name) });
    this.onPublished?.(event);
    for (const tap of this.taps) {
      try {
        await tap(event);
      } catch (err) {
        this.logger.error('event tap failed', { event_type: event.event_type, event_id: event.event_id, error: (err as Error).message });
      }
    }
  }
}
