import { eventTypes, type EventType } from '../contracts/events.ts';
import { matchesPattern, validatePattern, type EventPattern } from './pattern.ts';
import type { BusEvent } from './bus-event.ts';

/**
 * Who consumes what (spec "Producers and consumers" and emission rules 4 and 7). One
 * table drives three things that must never disagree: the local bus's rules, the
 * EventBridge rules and SQS queues declared in infra/events.ts, and the Kafka consumer
 * groups. Each consumer has its own queue (and that queue its own dead-letter queue), so
 * a slow or failing consumer never holds up another.
 */
export const consumerNames = ['api', 'healer', 'stream-analytics', 'knowledge-worker', 'dlq-processor'] as const;
export type ConsumerName = (typeof consumerNames)[number];

export interface ConsumerRoute {
  consumer: ConsumerName;
  /** Event types delivered to this consumer's queue. */
  handles: readonly EventType[];
  /** Why it gets them (documentation; docs/events.md mirrors it). */
  why: string;
  /**
   * Whether this codebase has the consumer's handlers yet. Queues and rules exist for
   * every consumer; only implemented ones get a function (and lag alarms), so events
   * for the others wait in their queue until the feature ships.
   */
  implemented: boolean;
}

export const consumerRoutes: readonly ConsumerRoute[] = [
  {
    consumer: 'api',
    // Rule 7's handled types, plus what the dashboard and agent gateway show live.
    handles: ['codebase.ingested', 'codebase.analyzed', 'test.created', 'test.failed', 'healing.completed', 'patterns.failure-cluster'],
    why: 'spec rule 7 handled types; healing.completed and failure clusters for the dashboard and agent gateway',
    implemented: true,
  },
  // Failed tests of a run heal inside that run (self_heal); a request starts a heal run.
  { consumer: 'healer', handles: ['healing.requested'], why: 'heals on request: a heal run of the test (failed runs heal inline, in their self_heal node)', implemented: true },
  { consumer: 'stream-analytics', handles: ['test.executed', 'test.failed'], why: 'failure clustering → svc.patterns.failure-cluster', implemented: true },
  // test.executed is not routed here: what runs teach (coverage, flakiness, quality) is read
  // from the stored results, which hold more than the event (docs/decisions.md).
  { consumer: 'knowledge-worker', handles: ['codebase.ingested'], why: 'analyses ingested codebases and keeps the analysis as the project\'s knowledge of its code (rule 5)', implemented: true },
  { consumer: 'dlq-processor', handles: ['dlq'], why: 'republishes dead letters with back-off, then parks them and alerts', implemented: true },
];

/** Sources svc producers use; every rule requires one, so foreign events on a shared bus never match. */
export const SOURCE_PREFIX = 'svc.';

/**
 * The EventBridge rule pattern of a consumer: its event types, from svc producers, and
 * not a retry addressed to another consumer (the dlq processor marks a republished event
 * with `metadata.retry_for`, so only the consumer that failed gets it again).
 */
export function patternFor(route: ConsumerRoute): EventPattern {
  return validatePattern({
    source: [{ prefix: SOURCE_PREFIX }],
    'detail-type': [...route.handles],
    detail: { metadata: { retry_for: [{ exists: false }, route.consumer] } },
  });
}

/** Route of one consumer (throws for an unknown name, which is a wiring bug). */
export function routeOf(consumer: ConsumerName): ConsumerRoute {
  const route = consumerRoutes.find((r) => r.consumer === consumer);
  if (!route) throw new Error(`no route for consumer ${consumer}`);
  return route;
}

/** Consumers whose rule matches a bus event: the queues the bus puts it on. */
export function consumersFor(event: BusEvent): ConsumerName[] {
  return consumerRoutes.filter((r) => matchesPattern(patternFor(r), event)).map((r) => r.consumer);
}

/** Kafka consumer group of a consumer (one group per consumer, like one queue per consumer). */
export const consumerGroupOf = (consumer: ConsumerName) => `svc-${consumer}`;

/** Event types nobody consumes yet (published for retention and future consumers). */
export function unconsumedTypes(): EventType[] {
  return eventTypes.filter((t) => !consumerRoutes.some((r) => r.handles.includes(t)));
}
