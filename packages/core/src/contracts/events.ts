import { z } from 'zod';
import { IsoDateTime, JsonObject, Uuid } from './common.ts';
import { TestType } from './test.ts';
import { randomIds, systemClock, type Clock, type IdSource } from '../ports/clock.ts';

/**
 * Domain events (spec "Events"). Payload schemas are loose objects: consumers must
 * tolerate fields added later (the spec's evolution rule is backward compatibility),
 * while producers are held to the required fields by `createEvent`.
 */
export const eventTypes = [
  'codebase.ingested',
  'codebase.analyzed',
  'test.created',
  'test.executed',
  'test.failed',
  'healing.requested',
  'healing.completed',
  'dlq',
  'integration.vcs.pr',
  'integration.errors',
  'patterns.failure-cluster',
] as const;
export const EventType = z.enum(eventTypes).describe('Domain event type; the topic is svc.<event_type>');
export type EventType = z.output<typeof EventType>;

/** Topic name for an event type: `svc.` + type. */
export const topicFor = (type: EventType): string => `svc.${type}`;

/** The envelope every event travels in. */
export const EventEnvelopeSchema = z.strictObject({
  event_id: z.uuidv4().describe('UUID v4; the deduplication key for idempotent processing'),
  event_type: EventType,
  timestamp: IsoDateTime.describe('When the event was produced (ISO 8601 UTC)'),
  source: z.string().min(1).describe('Producer identifier, e.g. api, test-runner, healer'),
  tenant_id: z.string().min(1).describe('Tenant (organization) the event belongs to'),
  correlation_id: z.string().min(1).describe('Request-tracing id shared by causally related events'),
  payload: JsonObject.describe('Event-specific payload; see payloadSchemas'),
  metadata: JsonObject.default({}).describe('Optional extra data (defaults to {}); dlq events carry retry info here'),
});
export type EventEnvelope = z.output<typeof EventEnvelopeSchema>;
export type EventEnvelopeInput = z.input<typeof EventEnvelopeSchema>;

// ---- payloads -------------------------------------------------------------

const Str = z.string().min(1);

export const CodebaseIngestedPayload = z.looseObject({
  project_id: Uuid.describe('Project whose codebase was ingested'),
  codebase_path: Str.describe('Path or URL of the ingested codebase'),
  commit_sha: z.string().optional().describe('Commit that was ingested, when known'),
  ingestion_id: Uuid.optional().describe('The codebase ingestion record (POST /api/analyze with async); absent → the event id names it'),
});

export const CodebaseAnalyzedPayload = z.looseObject({
  project_id: Uuid.describe('Project whose codebase was analysed'),
  codebase_path: z.string().optional().describe('Path or URL of the analysed codebase'),
  summary: z.string().optional().describe('Short summary of the codebase'),
  testable_surfaces: z.array(JsonObject).default([]).describe('Testable surfaces found (routes, endpoints, forms, ...)'),
  surface_count: z.number().int().nonnegative().optional().describe('Number of surfaces found'),
  ingestion_id: Uuid.optional().describe('The codebase ingestion analysed, when the knowledge worker analysed one'),
});

export const TestCreatedPayload = z.looseObject({
  test_id: Uuid.describe('Created test'),
  test_name: Str.describe('Test name'),
  test_type: TestType.describe('Test kind'),
  project_id: Uuid.describe('Project the test belongs to'),
  test_spec: JsonObject.describe('The test definition (steps, assertions, priority, tags); a test too large for an event carries step_count, assertion_count and steps_omitted instead of steps and assertions'),
  test_suite_id: z.string().optional().describe('Suite the test belongs to; the partition key when present'),
});

export const TestExecutedPayload = z.looseObject({
  test_id: Uuid.describe('Executed test'),
  run_id: Uuid.describe('Run the execution belongs to'),
  project_id: Uuid.describe('Project of the test'),
  test_suite_id: z.string().optional().describe('Suite of the test; the partition key when present'),
  status: z.enum(['passed', 'failed', 'skipped', 'healed']).describe('Outcome of the execution'),
  duration_ms: z.number().int().nonnegative().describe('Wall-clock duration in milliseconds'),
  error_message: z.string().optional().describe('Failure message when status is failed'),
});

export const TestFailedPayload = z.looseObject({
  test_id: Uuid.describe('Failed test'),
  failure_details: z
    .looseObject({
      error_message: z.string().optional().describe('The failure message'),
      failure_type: z.string().optional().describe('Classification, e.g. selector_not_found, assertion, timeout'),
      selector: z.string().optional().describe('Selector that could not be resolved, for selector failures'),
      step_index: z.number().int().nonnegative().optional().describe('Index of the failing step'),
    })
    .describe('What went wrong'),
  run_id: Uuid.optional().describe('Run the failure happened in'),
  project_id: Uuid.optional().describe('Project of the test'),
  test_suite_id: z.string().optional().describe('Suite of the test; the partition key when present'),
});

export const HealingRequestedPayload = z.looseObject({
  test_id: Uuid.describe('Test to heal'),
  run_id: Uuid.optional().describe('Run in which the failure happened'),
  project_id: Uuid.optional().describe('Project of the test'),
  step_index: z.number().int().nonnegative().optional().describe('Index of the failing step'),
  field: z.string().optional().describe('The extract step\'s field whose selector broke (with step_index)'),
  original_selector: z.string().optional().describe('Selector that no longer resolves'),
  error_message: z.string().describe('The failure message'),
  requested_by: z.string().optional().describe('Who asked: a user id, an API key id, or "runner"'),
});

export const HealingCompletedPayload = z.looseObject({
  test_id: Uuid.describe('Test that was healed (or not)'),
  run_id: Uuid.optional().describe('Run in which the failure happened'),
  project_id: Uuid.optional().describe('Project of the test'),
  success: z.boolean().describe('Whether a replacement was found'),
  original_selector: z.string().optional().describe('Selector that no longer resolved'),
  healed_selector: z.string().nullable().describe('Replacement selector, or null when none was found'),
  confidence: z.number().min(0).max(1).describe('Confidence in the replacement, 0..1'),
  healing_method: z.string().optional().describe('How it was found, e.g. cache, memory, dom_similarity, vision, git'),
  from_cache: z.boolean().default(false).describe('True when served from the healing cache without running the healer'),
  applied: z.boolean().describe('Whether the fix was applied automatically (confidence at or above the threshold)'),
  git_commit: z.string().max(40).optional().describe('Commit that changed the element, in git-aware mode'),
  outcome: z.enum(['healed', 'cannot_heal', 'exhausted', 'rejected', 'not_needed']).optional().describe('How the heal ended: healed, cannot_heal, exhausted (max retries), rejected (by a reviewer), not_needed (the test passed as it was)'),
  reason: z.string().max(2000).optional().describe('Why it ended so (for every outcome but healed)'),
  proposed_selector: z.string().optional().describe('The fix a reviewer rejected (outcome rejected)'),
  step_index: z.number().int().nonnegative().optional().describe('Step whose locator was healed'),
  field: z.string().optional().describe('The extract step\'s field whose locator was healed'),
  attempt: z.number().int().positive().optional().describe('Execution of the test in the run that this concludes'),
});

export const DlqPayload = z.looseObject({
  original_topic: Str.describe('Topic the failed message came from'),
  original_partition: z.number().int().nonnegative().describe('Partition of the failed message'),
  original_offset: z.union([z.number().int().nonnegative(), z.string()]).describe('Offset of the failed message'),
  original_key: z.string().nullable().describe('Key of the failed message (the dlq partition key), or null'),
  original_value: z.string().describe('The failed message value, as received'),
  error_type: Str.describe('Error class raised by the consumer'),
  error_message: z.string().describe('Error message raised by the consumer'),
  error_traceback: z.string().nullable().describe('Stack trace, or null'),
});

/** Metadata carried by dlq events. */
export const DlqMetadata = z.looseObject({
  retry_count: z.number().int().nonnegative().describe('Previous retry count plus one'),
  max_retries: z.number().int().positive().default(3).describe('Retries before the event is parked (default 3)'),
  failed_at: IsoDateTime.describe('When the consumer failed'),
});

export const IntegrationVcsPrPayload = z.looseObject({
  provider: Str.describe('Source-control host, e.g. github, gitlab, bitbucket'),
  repository: Str.describe('Repository full name, e.g. org/repo'),
  pr_number: z.number().int().positive().describe('Pull request number'),
  action: Str.describe('What happened: opened, synchronize, closed, reopened, ...'),
  head_sha: z.string().optional().describe('Head commit of the pull request'),
  head_ref: z.string().optional().describe('Source branch'),
  base_ref: z.string().optional().describe('Target branch'),
  url: z.string().optional().describe('Link to the pull request'),
  changed_files: z.array(z.string()).optional().describe('Paths changed by the pull request, when known'),
  project_id: Uuid.optional().describe('Project linked to the repository, when known'),
});

export const IntegrationErrorsPayload = z.looseObject({
  provider: Str.describe('Error monitor the event came from'),
  error_id: Str.describe('Id of the error/issue in the error monitor'),
  message: z.string().describe('Error message or title'),
  url: z.string().optional().describe('Link to the error in the monitor'),
  environment: z.string().optional().describe('Environment the error happened in'),
  occurrences: z.number().int().nonnegative().optional().describe('Occurrence count'),
  occurred_at: IsoDateTime.optional().describe('When the error last occurred'),
  project_id: Uuid.optional().describe('Project linked to the monitor, when known'),
});

export const FailureClusterPayload = z.looseObject({
  cluster_id: Str.describe('Stable id of the cluster'),
  project_id: Uuid.optional().describe('Project the failures belong to'),
  error_signature: z.string().describe('Normalised error message shared by the cluster'),
  test_ids: z.array(Uuid).describe('Tests whose failures are in the cluster'),
  failure_count: z.number().int().positive().describe('Failures in the window'),
  window_start: IsoDateTime.describe('Start of the aggregation window'),
  window_end: IsoDateTime.describe('End of the aggregation window'),
  suggested_cause: z.string().optional().describe('Likely shared root cause'),
});

/** Payload schema of every event type. */
export const payloadSchemas = {
  'codebase.ingested': CodebaseIngestedPayload,
  'codebase.analyzed': CodebaseAnalyzedPayload,
  'test.created': TestCreatedPayload,
  'test.executed': TestExecutedPayload,
  'test.failed': TestFailedPayload,
  'healing.requested': HealingRequestedPayload,
  'healing.completed': HealingCompletedPayload,
  dlq: DlqPayload,
  'integration.vcs.pr': IntegrationVcsPrPayload,
  'integration.errors': IntegrationErrorsPayload,
  'patterns.failure-cluster': FailureClusterPayload,
} as const satisfies Record<EventType, z.ZodType>;

export type EventPayload<T extends EventType> = z.output<(typeof payloadSchemas)[T]>;
export type EventPayloadInput<T extends EventType> = z.input<(typeof payloadSchemas)[T]>;

/** Payload field used as the partition key; tenant_id is used when the payload lacks it. */
export const partitionKeyField: Record<EventType, string> = {
  'codebase.ingested': 'project_id',
  'codebase.analyzed': 'project_id',
  'test.created': 'test_suite_id',
  'test.executed': 'test_suite_id',
  'test.failed': 'test_suite_id',
  'healing.requested': 'test_id',
  'healing.completed': 'test_id',
  dlq: 'original_key',
  'integration.vcs.pr': 'repository',
  'integration.errors': 'error_id',
  'patterns.failure-cluster': 'cluster_id',
};

/** Partition key of an event per the spec's table, falling back to tenant_id. */
export function partitionKeyFor(event: Pick<EventEnvelope, 'event_type' | 'payload' | 'tenant_id'>): string {
  const value = event.payload[partitionKeyField[event.event_type]];
  return typeof value === 'string' && value !== '' ? value : event.tenant_id;
}

/** Topic settings (partitions; retention per the spec's first table, days). */
export const topicSettings: Record<EventType, { partitions: number; retentionDays: number }> = {
  'codebase.ingested': { partitions: 6, retentionDays: 7 },
  'codebase.analyzed': { partitions: 6, retentionDays: 7 },
  'test.created': { partitions: 6, retentionDays: 7 },
  'test.executed': { partitions: 6, retentionDays: 30 },
  'test.failed': { partitions: 6, retentionDays: 30 },
  'healing.requested': { partitions: 6, retentionDays: 14 },
  'healing.completed': { partitions: 6, retentionDays: 30 },
  dlq: { partitions: 3, retentionDays: 30 },
  'integration.vcs.pr': { partitions: 6, retentionDays: 30 },
  'integration.errors': { partitions: 6, retentionDays: 14 },
  'patterns.failure-cluster': { partitions: 6, retentionDays: 30 },
};

export interface CreateEventInput<T extends EventType> {
  type: T;
  source: string;
  tenant_id: string;
  /** Defaults to the new event's id (a new causal chain). */
  correlation_id?: string;
  payload: EventPayloadInput<T>;
  metadata?: Record<string, unknown>;
}

/**
 * Build a validated event envelope. The payload is parsed by its type's schema (so
 * defaults are applied and a producer bug surfaces here, not in a consumer); dlq
 * metadata is parsed by `DlqMetadata`. Throws a ZodError on invalid input.
 */
export function createEvent<T extends EventType>(
  input: CreateEventInput<T>,
  opts: { ids?: IdSource; clock?: Clock } = {},
): EventEnvelope {
  const payload = payloadSchemas[input.type].parse(input.payload) as Record<string, unknown>;
  const metadata: Record<string, unknown> =
    input.type === 'dlq' ? DlqMetadata.parse(input.metadata ?? {}) : { ...(input.metadata ?? {}) };
  const event_id = (opts.ids ?? randomIds).uuid();
  return EventEnvelopeSchema.parse({
    event_id,
    event_type: input.type,
    timestamp: (opts.clock ?? systemClock).now().toISOString(),
    source: input.source,
    tenant_id: input.tenant_id,
    correlation_id: input.correlation_id ?? event_id,
    payload,
    metadata,
  });
}

/** Parse an event received from the bus, validating its payload by type. */
export function parseEvent(data: unknown): EventEnvelope {
  const envelope = EventEnvelopeSchema.parse(data);
  const payload = payloadSchemas[envelope.event_type].parse(envelope.payload) as Record<string, unknown>;
  return { ...envelope, payload };
}
