import { TestExecutedPayload, TestFailedPayload, type EventEnvelope } from '../contracts/events.ts';
import type { Item } from '../ports/table.ts';
import type { ConsumerDefinition, HandlerContext } from './consumer.ts';
import { failureSignature, signatureHash } from './failure-signature.ts';
import { eventSources, failureClusterFound } from './producers.ts';

/**
 * Stream analytics: clusters similar test failures and publishes a cluster on
 * svc.patterns.failure-cluster once it reaches `threshold` failures within one window.
 *
 * Windows are tumbling and keyed by the *event* timestamp, not arrival time, so events
 * delivered late or out of order still land in the window they happened in. The
 * cluster is one item per (tenant, project, signature, window), updated under an
 * optimistic version check: two consumers racing on the same cluster cannot both count
 * from the same value (the loser's transaction fails and the runner re-runs it), and the
 * cluster is published exactly when the committed count reaches the threshold.
 */
export interface StreamAnalyticsOptions {
  /** Failures in one window that make a cluster (default 3). */
  threshold?: number;
  /** Window length (default 15 minutes, the spec's sync class for failure clusters). */
  windowMs?: number;
  /** Test ids kept per cluster (default 100). */
  maxTestIds?: number;
}

const CLUSTER_TTL_SECONDS = 30 * 24 * 3600;
/** Failures alike in one window that make a cluster, and the window (the spec's 15-minute class). */
export const DEFAULT_CLUSTER_THRESHOLD = 3;
export const DEFAULT_CLUSTER_WINDOW_MS = 15 * 60_000;
/** Key prefix of the cluster items under an organization (sorted by window start). */
export const FAILURE_CLUSTER_PREFIX = 'FAILCLUSTER#';

const SUGGESTED_CAUSES: Record<string, string> = {
  selector_not_found: 'a selector shared by these tests no longer matches (likely a UI change)',
  timeout: 'the application or environment is slow or unavailable',
  assertion: 'the application behaviour changed for a shared flow',
  network: 'a backend dependency is failing',
};

/** What failures of a type usually mean, when svc has something to say. */
export const suggestedCause = (failureType: string | null | undefined): string | undefined => SUGGESTED_CAUSES[(failureType ?? '').toLowerCase()];

export function streamAnalytics(opts: StreamAnalyticsOptions = {}): ConsumerDefinition {
  const threshold = opts.threshold ?? DEFAULT_CLUSTER_THRESHOLD;
  const windowMs = opts.windowMs ?? DEFAULT_CLUSTER_WINDOW_MS;
  const maxTestIds = opts.maxTestIds ?? 100;
  return {
    name: 'stream-analytics',
    timeoutMs: 10_000,
    handlers: {
      'test.failed': (event, ctx) => clusterFailure(event, ctx, { threshold, windowMs, maxTestIds }),
      'test.executed': (event, ctx) => countExecution(event, ctx),
    },
  };
}

async function clusterFailure(event: EventEnvelope, ctx: HandlerContext, o: Required<StreamAnalyticsOptions>): Promise<void> {
  const p = TestFailedPayload.parse(event.payload);
  const signature = failureSignature(p.failure_details.failure_type, p.failure_details.error_message ?? '');
  const at = Date.parse(event.timestamp);
  const ts = new Date(at).toISOString(); // offsets normalised, so ISO strings compare as times
  const windowStart = new Date(Math.floor(at / o.windowMs) * o.windowMs);
  const windowEnd = new Date(windowStart.getTime() + o.windowMs);
  const project = p.project_id ?? '-';
  const clusterId = `fc-${signatureHash(event.tenant_id, project, signature, windowStart.toISOString())}`;
  const key = { pk: `ORG#${event.tenant_id}`, sk: `${FAILURE_CLUSTER_PREFIX}${windowStart.toISOString()}#${clusterId}` };

  const current = await ctx.table.get(key);
  const count = Number(current?.failure_count ?? 0) + 1;
  const testIds = [...new Set([...((current?.test_ids as string[] | undefined) ?? []), p.test_id])].slice(0, o.maxTestIds);
  const publish = count >= o.threshold && !current?.published_at;
  const now = ctx.clock.now().toISOString();
  const fields = {
    failure_count: count,
    test_ids: testIds,
    first_seen: minIso(current?.first_seen as string | undefined, ts),
    last_seen: maxIso(current?.last_seen as string | undefined, ts),
    version: Number(current?.version ?? 0) + 1,
    ...(publish ? { published_at: now } : {}),
  };
  if (!current) {
    const item: Item = {
      ...key,
      entity: 'failure_cluster',
      cluster_id: clusterId,
      project_id: p.project_id ?? null,
      error_signature: signature,
      failure_type: p.failure_details.failure_type ?? null,
      window_start: windowStart.toISOString(),
      window_end: windowEnd.toISOString(),
      expiresAt: Math.floor(ctx.clock.now().getTime() / 1000) + CLUSTER_TTL_SECONDS, // from processing time: a late event must not be born expired
      ...fields,
    };
    ctx.write({ type: 'put', item, condition: { kind: 'notExists' } });
  } else {
    ctx.write({ type: 'update', update: { key, set: fields, condition: { kind: 'equals', attr: 'version', value: Number(current.version) } } });
  }
  if (publish) {
    const cause = suggestedCause(p.failure_details.failure_type);
    ctx.emit(
      failureClusterFound(
        { source: eventSources.streamAnalytics, tenant_id: event.tenant_id, correlation_id: event.correlation_id, clock: ctx.clock },
        {
          cluster_id: clusterId,
          ...(p.project_id ? { project_id: p.project_id } : {}),
          error_signature: signature,
          test_ids: testIds,
          failure_count: count,
          window_start: windowStart.toISOString(),
          window_end: windowEnd.toISOString(),
          ...(cause ? { suggested_cause: cause } : {}),
        },
      ),
    );
  }
}

/** Per-test daily execution counts by status (the raw material for flakiness and pass rates). */
async function countExecution(event: EventEnvelope, ctx: HandlerContext): Promise<void> {
  const p = TestExecutedPayload.parse(event.payload);
  const day = new Date(event.timestamp).toISOString().slice(0, 10);
  const key = { pk: `ORG#${event.tenant_id}`, sk: `TESTSTATS#${p.test_id}#${day}` };
  const current = await ctx.table.get(key);
  const counts = { passed: 0, failed: 0, skipped: 0, healed: 0, ...((current?.counts as Record<string, number> | undefined) ?? {}) };
  counts[p.status] += 1;
  const fields = { counts, total_duration_ms: Number(current?.total_duration_ms ?? 0) + p.duration_ms, version: Number(current?.version ?? 0) + 1 };
  if (!current) {
    ctx.write({
      type: 'put',
      item: { ...key, entity: 'test_execution_stats', test_id: p.test_id, project_id: p.project_id, day, expiresAt: Math.floor(ctx.clock.now().getTime() / 1000) + 90 * 86400, ...fields },
      condition: { kind: 'notExists' },
    });
  } else {
    ctx.write({ type: 'update', update: { key, set: fields, condition: { kind: 'equals', attr: 'version', value: Number(current.version) } } });
  }
}

const minIso = (a: string | undefined, b: string) => (a && a < b ? a : b);
const maxIso = (a: string | undefined, b: string) => (a && a > b ? a : b);
