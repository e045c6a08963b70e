import type { Clock, IdSource } from '@svc/core/ports/clock';
import { systemClock } from '@svc/core/ports/clock';
import type { EventPublisher } from '@svc/core/ports/events';
import type { Logger } from '@svc/core/ports/logger';
import type { Table } from '@svc/core/ports/table';
import { ConsumerRunner, type ConsumerDefinition } from '@svc/core/events/consumer';
import { apiConsumer } from '@svc/core/events/api-consumer';
import { healerConsumer, type StartHealRun } from '@svc/core/events/healer-consumer';
import { dlqProcessor } from '@svc/core/events/dlq-processor';
import { failedEventsRepo } from '@svc/core/events/failed-events';
import { streamAnalytics, type StreamAnalyticsOptions } from '@svc/core/events/stream-analytics';
import { QueuePoller } from '@svc/core/events/queue-poller';
import { knowledgeWorker, type KnowledgeWorkerDeps } from '@svc/core/knowledge/knowledge-worker';
import { patternFor, routeOf, type ConsumerName } from '@svc/core/events/routing';
import type { AlertSink, RetryScheduler } from '@svc/core/events/ports';
import { consumerObserver, serviceMetrics, type ServiceMetrics } from '@svc/core/telemetry/service-metrics';
import { LocalEventBus } from './local-bus.ts';
import { LocalQueue } from './local-queue.ts';
import { TimerRetryScheduler, type SetTimer } from './timer-scheduler.ts';
import { LogAlertSink } from './log-alert-sink.ts';

/**
 * The event machinery of the local runtime, wired from core's routing table: one bus,
 * one queue (with its dead-letter queue, redrive after 3 receives) per consumer that has
 * a handler here, a poller per queue, the dlq processor with its back-off timer, and
 * the metrics collectors for consumer lag and dead-letter depth. A consumer without
 * handlers here (the knowledge worker without `knowledge`, the healer without a run
 * starter) gets no queue, so nothing piles up unread.
 */
export interface LocalEventsOptions {
  table: Table;
  logger: Logger;
  clock?: Clock;
  ids?: IdSource;
  metrics?: ServiceMetrics;
  /** Consumers to run; default: api, stream-analytics, dlq-processor (and the healer given `startHealRun`, the knowledge worker given `knowledge`). */
  consumers?: ConsumerDefinition[];
  /** Starts heal runs: with it the healer consumes healing.requested (healRunStarter). */
  startHealRun?: StartHealRun;
  /** What the knowledge worker reads and keeps with: with it, it consumes codebase.ingested. */
  knowledge?: Omit<KnowledgeWorkerDeps, 'countOperation'>;
  streamAnalytics?: StreamAnalyticsOptions;
  alerts?: AlertSink;
  /** Back-off timer for dlq republishes (inject to observe delays in tests). */
  setTimer?: SetTimer;
  scheduler?: RetryScheduler;
  visibilityTimeoutMs?: number;
  maxReceiveCount?: number;
  pollWaitMs?: number;
  /** Clock of the queues' visibility timeouts (epoch ms). */
  queueNow?: () => number;
}

export interface LocalConsumer {
  name: string;
  queue: LocalQueue;
  deadLetterQueue: LocalQueue;
  runner: ConsumerRunner;
  poller: QueuePoller;
}

export interface LocalEvents {
  /** The publisher to hand to the API and every producer (checks events, routes them). */
  bus: LocalEventBus;
  consumers: Map<string, LocalConsumer>;
  metrics: ServiceMetrics;
  alerts: AlertSink;
  scheduler: RetryScheduler;
  start(): void;
  stop(): Promise<void>;
  /**
   * Polls every queue until none has a visible message (tests, benchmarks). Messages in
   * flight elsewhere, or waiting out a visibility timeout after a crash, are not waited for.
   */
  drain(timeoutMs?: number): Promise<void>;
}

export function createLocalEvents(opts: LocalEventsOptions): LocalEvents {
  const metrics = opts.metrics ?? serviceMetrics();
  const clock = opts.clock ?? systemClock;
  const bus = new LocalEventBus(opts.logger, (e) => metrics.eventsPublished.inc({ event_type: e.event_type }));
  const alerts = opts.alerts ?? new LogAlertSink(opts.logger, metrics);
  const timerScheduler = opts.scheduler ? undefined : new TimerRetryScheduler(bus, opts.logger, opts.setTimer);
  const scheduler = opts.scheduler ?? timerScheduler!;
  const definitions = opts.consumers ?? [apiConsumer(), streamAnalytics(opts.streamAnalytics), dlqProcessor({ alerts }), ...(opts.startHealRun ? [healerConsumer(opts.startHealRun)] : []),
    ...(opts.knowledge ? [knowledgeWorker({ ...opts.knowledge, countOperation: (operation, status) => metrics.knowledgeEclOperations.inc({ operation, status }) })] : []),
  ];
  const publisher: EventPublisher = bus;
  const consumers = new Map<string, LocalConsumer>();

  for (const def of definitions) {
    const route = routeOf(def.name as ConsumerName);
    // A message stays hidden well past its handler's deadline, so a slow handler is not run twice at once.
    const queueOpts = { visibilityTimeoutMs: opts.visibilityTimeoutMs ?? Math.max(30_000, 2 * (def.timeoutMs ?? 0)), maxReceiveCount: opts.maxReceiveCount ?? 3, now: opts.queueNow };
    const deadLetterQueue = new LocalQueue(`svc-${def.name}-dlq`, { ...queueOpts, retentionMs: 14 * 24 * 3600_000 });
    const queue = new LocalQueue(`svc-${def.name}`, { ...queueOpts, deadLetterQueue });
    bus.addRule({ name: `svc-${def.name}`, pattern: patternFor(route), target: queue });
    const runner = new ConsumerRunner(def, {
      table: opts.table, publisher, logger: opts.logger, clock, ids: opts.ids, scheduler, observer: consumerObserver(metrics),
    });
    const worker = def.name;
    const poller = new QueuePoller(queue, runner, {
      logger: opts.logger,
      waitMs: opts.pollWaitMs ?? 1000,
      onAlive: () => metrics.workerHeartbeat.set({ worker }, Math.floor(clock.now().getTime() / 1000)),
    });
    consumers.set(def.name, { name: def.name, queue, deadLetterQueue, runner, poller });
  }

  const failed = failedEventsRepo(opts.table);
  metrics.registry.addCollector(async () => {
    for (const c of consumers.values()) {
      const d = await c.queue.depth();
      metrics.consumerLag.set({ consumer: c.name }, d.waiting + d.inFlight);
      const dl = await c.deadLetterQueue.depth();
      metrics.dlqDepth.set({ queue: c.deadLetterQueue.name }, dl.waiting + dl.inFlight);
    }
    metrics.dlqDepth.set({ queue: 'parked' }, await failed.count());
  });

  return {
    bus,
    consumers,
    metrics,
    alerts,
    scheduler,
    start() {
      for (const c of consumers.values()) c.poller.start();
    },
    async stop() {
      timerScheduler?.cancelAll();
      await Promise.all([...consumers.values()].map((c) => c.poller.stop()));
    },
    async drain(timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        let busy = 0;
        for (const c of consumers.values()) {
          busy += await c.poller.pollOnce(undefined, 0);
          busy += (await c.queue.depth()).waiting;
        }
        if (busy === 0) return;
        if (Date.now() > deadline) throw new Error('event queues did not drain in time');
      }
    },
  };
}
