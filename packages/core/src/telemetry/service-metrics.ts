import type { ConsumerObserver } from '../events/consumer.ts';
import { MetricsRegistry } from './metrics.ts';

/**
 * The service's metrics (spec "Operational telemetry") plus the event machinery's own.
 * Spec names are kept verbatim; extra series exist where an alert needs a signal the
 * spec's five metrics do not carry (LLM errors, available browser sessions, worker
 * heartbeats, consumer lag, dead-letter depth). docs/events.md lists them all.
 */
export function serviceMetrics(registry = new MetricsRegistry()) {
  return {
    registry,
    // --- spec: Operational telemetry
    knowledgeEclOperations: registry.counter('knowledge_ecl_operations_total', 'Knowledge ECL operations (extract, cognify, load)', ['operation', 'status']),
    knowledgeSearchLatency: registry.histogram('knowledge_search_latency_seconds', 'Latency of knowledge searches', ['tier']),
    healingSuggestions: registry.counter('healing_suggestions_total', 'Healing suggestions produced', ['method', 'applied']),
    llmTokens: registry.counter('llm_tokens_total', 'LLM tokens used, by model', ['model']),
    browserPoolActiveSessions: registry.gauge('browser_pool_active_sessions', 'Browser sessions currently in use'),
    // --- signals for the spec's alerts
    llmRequests: registry.counter('llm_requests_total', 'LLM requests by model and outcome (ok, error)', ['model', 'outcome']),
    browserPoolAvailableSessions: registry.gauge('browser_pool_available_sessions', 'Browser sessions free to start a test'),
    workerHeartbeat: registry.gauge('svc_worker_last_heartbeat_seconds', 'Unix time of the last heartbeat of a worker', ['worker']),
    // --- events
    eventsPublished: registry.counter('svc_events_published_total', 'Events accepted by the bus', ['event_type']),
    eventsConsumed: registry.counter('svc_events_consumed_total', 'Events dealt with by a consumer, by outcome', ['consumer', 'outcome']),
    eventProcessing: registry.histogram('svc_event_processing_seconds', 'Time a consumer spent on one event', ['consumer']),
    deadLetters: registry.counter('svc_dead_letters_total', 'Events a consumer failed on and dead-lettered', ['consumer', 'error_type']),
    consumerLag: registry.gauge('svc_consumer_lag', 'Messages waiting or in flight in a consumer queue', ['consumer']),
    dlqDepth: registry.gauge('svc_dlq_depth', 'Dead letters not yet resolved: queue dead-letter queues and parked events', ['queue']),
    alertsRaised: registry.counter('svc_alerts_raised_total', 'Alerts raised by the service itself', ['alert', 'severity']),
  };
}

export type ServiceMetrics = ReturnType<typeof serviceMetrics>;

/** Feeds consumer outcomes into the event metrics. */
export function consumerObserver(m: ServiceMetrics): ConsumerObserver {
  return {
    outcome(consumer, status, seconds) {
      m.eventsConsumed.inc({ consumer, outcome: status });
      m.eventProcessing.observe({ consumer }, seconds);
    },
    deadLettered(consumer, errorType) {
      m.deadLetters.inc({ consumer, error_type: errorType });
    },
  };
}
