import { createEvent, type EventEnvelope, type EventPayloadInput, type EventType } from '../contracts/events.ts';
import type { Clock, IdSource } from '../ports/clock.ts';
import type { Analysis } from '../intelligence/analysis/types.ts';

/**
 * Producer functions for the spec's emission rules. Each builds a schema-valid envelope
 * (createEvent parses the payload, so a producer bug fails where it is made, not in a
 * consumer); publishing is the caller's, through the one EventPublisher port. Later
 * features (runner, healer, knowledge worker, webhooks) call these instead of
 * assembling envelopes by hand.
 */

/** Producer identifiers used as `source` (and EventBridge Source); rules require the svc. prefix. */
export const eventSources = {
  api: 'svc.api',
  testRunner: 'svc.test-runner',
  browserWorker: 'svc.browser-worker',
  healer: 'svc.healer',
  knowledgeWorker: 'svc.knowledge-worker',
  streamAnalytics: 'svc.stream-analytics',
  webhooks: 'svc.webhooks',
  dlqProcessor: 'svc.dlq-processor',
  consumer: (name: string) => `svc.consumer.${name}`,
} as const;

/** Who is producing, for which tenant, in which causal chain. */
export interface ProducerContext {
  source: string;
  tenant_id: string;
  /** Request or run id; defaults to the new event's id (a new causal chain). */
  correlation_id?: string;
  metadata?: Record<string, unknown>;
  ids?: IdSource;
  clock?: Clock;
}

/** The healing confidence at or above which a fix may be applied automatically (spec Limits). */
export const SELF_HEAL_CONFIDENCE_THRESHOLD = 0.8;

function build<T extends EventType>(type: T, ctx: ProducerContext, payload: EventPayloadInput<T>): EventEnvelope {
  return createEvent(
    { type, source: ctx.source, tenant_id: ctx.tenant_id, correlation_id: ctx.correlation_id, payload, metadata: ctx.metadata },
    { ids: ctx.ids, clock: ctx.clock },
  );
}

/** Rule 1: a test was created (POST /api/tests). */
export const testCreated = (ctx: ProducerContext, payload: EventPayloadInput<'test.created'>) => build('test.created', ctx, payload);

/** Rule 2: the API ingested a codebase; the knowledge worker picks it up. */
export const codebaseIngested = (ctx: ProducerContext, payload: EventPayloadInput<'codebase.ingested'>) =>
  build('codebase.ingested', ctx, payload);

/** Rule 5: the knowledge worker finished processing codebase.ingested. */
export const codebaseAnalyzed = (ctx: ProducerContext, payload: EventPayloadInput<'codebase.analyzed'>) =>
  build('codebase.analyzed', ctx, payload);

/** A test execution finished, whatever its outcome (stream analytics and the knowledge worker learn from it). */
export const testExecuted = (ctx: ProducerContext, payload: EventPayloadInput<'test.executed'>) => build('test.executed', ctx, payload);

/** Rules 3 and 4: a browser worker saw a test fail; the healer and stream analytics consume it. */
export const testFailed = (ctx: ProducerContext, payload: EventPayloadInput<'test.failed'>) => build('test.failed', ctx, payload);

/** Healing asked for by the dashboard or the agent gateway. */
export const healingRequested = (ctx: ProducerContext, payload: EventPayloadInput<'healing.requested'>) =>
  build('healing.requested', ctx, payload);

/**
 * Rule 4: published after a heal attempt, from the cache or the healer, successful or
 * not. Refuses payloads that contradict the healing rules: a fix marked applied below
 * the confidence threshold, or a failed heal that names a replacement.
 */
export function healingCompleted(ctx: ProducerContext, payload: EventPayloadInput<'healing.completed'>): EventEnvelope {
  if (payload.applied && payload.confidence < SELF_HEAL_CONFIDENCE_THRESHOLD) {
    throw new Error(`healing.completed: a fix with confidence ${payload.confidence} cannot be applied automatically (threshold ${SELF_HEAL_CONFIDENCE_THRESHOLD})`);
  }
  if (!payload.success && (payload.healed_selector !== null || payload.applied)) {
    throw new Error('healing.completed: an unsuccessful heal has no healed_selector and is never applied');
  }
  return build('healing.completed', ctx, payload);
}

/** Stream analytics found a cluster of similar failures. */
export const failureClusterFound = (ctx: ProducerContext, payload: EventPayloadInput<'patterns.failure-cluster'>) =>
  build('patterns.failure-cluster', ctx, payload);

/** A source-control webhook reported pull-request activity. */
export const vcsPullRequest = (ctx: ProducerContext, payload: EventPayloadInput<'integration.vcs.pr'>) =>
  build('integration.vcs.pr', ctx, payload);

/** An error-monitor webhook reported a production error. */
export const integrationError = (ctx: ProducerContext, payload: EventPayloadInput<'integration.errors'>) =>
  build('integration.errors', ctx, payload);

/** Surfaces carried by codebase.analyzed; `surface_count` says how many there were. */
export const MAX_EVENT_SURFACES = 500;

/**
 * The codebase.analyzed payload of an analysis, whoever made it (the analyze endpoint, the
 * knowledge worker, a run's analyze_code): its summary, the first surfaces and the counts.
 */
export function analyzedPayload(analysis: Analysis, where: { project_id: string; codebase_path: string }, extra: Record<string, unknown> = {}): EventPayloadInput<'codebase.analyzed'> {
  return {
    ...where,
    summary: analysis.summary.text,
    testable_surfaces: analysis.surfaces.slice(0, MAX_EVENT_SURFACES).map((s) => ({ ...s })),
    surface_count: analysis.surfaces.length,
    counts: analysis.summary.counts,
    frameworks: analysis.summary.frameworks,
    highest_classification: analysis.summary.highest_classification,
    ...extra,
  };
}
