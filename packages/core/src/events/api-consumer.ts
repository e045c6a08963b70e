import type { EventEnvelope, EventType } from '../contracts/events.ts';
import { keys } from '../store/keys.ts';
import type { ConsumerDefinition, EventHandler, HandlerContext } from './consumer.ts';
import { TenantMismatchError } from './dead-letter.ts';

/**
 * The API's consumer (spec rule 7's handled types, plus healing results and failure
 * clusters for the dashboard and agent gateway). Its effect is the tenant's activity
 * feed — one item per event, ordered by the event's own timestamp, so a feed built from
 * events that arrived out of order still reads in the order things happened. Live
 * channels (SSE) and dashboard widgets read it.
 *
 * Before anything is written, the resources the event names must belong to its
 * tenant_id: a test or project id that does not resolve under that tenant makes the event
 * a TenantMismatchError — dead-lettered with that reason and never retried, so one
 * tenant's event can never write into another's feed.
 */
export const ACTIVITY_TTL_SECONDS = 30 * 24 * 3600;

const apiTypes = ['codebase.ingested', 'codebase.analyzed', 'test.created', 'test.failed', 'healing.completed', 'patterns.failure-cluster'] as const satisfies readonly EventType[];

/** Activity feed key: newest-first listing is a descending query on the sort key. */
export const activityKey = (tenantId: string, timestamp: string, eventId: string) => ({
  pk: `ORG#${tenantId}`,
  sk: `ACTIVITY#${new Date(timestamp).toISOString()}#${eventId}`,
});

/**
 * The same entry in its project's feed (same partition, another sort-key prefix), so a
 * project's activity is one query however busy the organization's other projects are.
 */
export const projectActivityKey = (tenantId: string, projectId: string, timestamp: string, eventId: string) => ({
  pk: `ORG#${tenantId}`,
  sk: `PACTIVITY#${projectId}#${new Date(timestamp).toISOString()}#${eventId}`,
});

export function apiConsumer(): ConsumerDefinition {
  const handler: EventHandler = async (event, ctx) => {
    await assertTenantOwns(event, ctx);
    const refs = refsOf(event);
    const entry = {
      entity: 'event_activity',
      event_id: event.event_id,
      event_type: event.event_type,
      correlation_id: event.correlation_id,
      source: event.source,
      occurred_at: new Date(event.timestamp).toISOString(),
      summary: summarise(event),
      refs,
      expiresAt: Math.floor(ctx.clock.now().getTime() / 1000) + ACTIVITY_TTL_SECONDS,
    };
    ctx.write({ type: 'put', item: { ...activityKey(event.tenant_id, event.timestamp, event.event_id), ...entry }, condition: { kind: 'notExists' } });
    if (refs.project_id) ctx.write({ type: 'put', item: { ...projectActivityKey(event.tenant_id, refs.project_id, event.timestamp, event.event_id), ...entry } });
  };
  return { name: 'api', timeoutMs: 10_000, handlers: Object.fromEntries(apiTypes.map((t) => [t, handler])) };
}

/** The tenant's activity, or one project's, newest first. */
export async function listActivity(ctx: Pick<HandlerContext, 'table'>, tenantId: string, limit = 50, projectId?: string) {
  return (await activityPage(ctx, tenantId, { limit, projectId })).items;
}

/** One page of the tenant's activity, or of one project's, newest first; `next_cursor` continues it. */
export async function activityPage(ctx: Pick<HandlerContext, 'table'>, tenantId: string, opts: { limit: number; projectId?: string; cursor?: string }) {
  const page = await ctx.table.query({ pk: `ORG#${tenantId}`, skPrefix: opts.projectId ? `PACTIVITY#${opts.projectId}#` : 'ACTIVITY#', descending: true, limit: opts.limit, cursor: opts.cursor });
  const items = page.items.map(({ event_id, event_type, occurred_at, summary, refs, correlation_id, source }) => ({
    event_id, event_type, occurred_at, summary, refs, correlation_id, source,
  }));
  return { items, next_cursor: page.cursor ?? null };
}

function refsOf(event: EventEnvelope): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of ['project_id', 'test_id', 'run_id', 'cluster_id']) {
    const v = event.payload[f];
    if (typeof v === 'string') out[f] = v;
  }
  return out;
}

/** Test and project ids named by the payload must exist under the event's tenant. */
async function assertTenantOwns(event: EventEnvelope, ctx: HandlerContext): Promise<void> {
  const p = event.payload;
  const checks: [string, { pk: string; sk: string }][] = [];
  if (typeof p.project_id === 'string') checks.push([`project ${p.project_id}`, keys.project(event.tenant_id, p.project_id)]);
  if (typeof p.test_id === 'string') checks.push([`test ${p.test_id}`, keys.test(event.tenant_id, p.test_id)]);
  if (Array.isArray(p.test_ids)) for (const id of p.test_ids.slice(0, 20)) checks.push([`test ${String(id)}`, keys.test(event.tenant_id, String(id))]);
  for (const [what, key] of checks) {
    if (!(await ctx.table.get(key))) {
      throw new TenantMismatchError(`${what} does not belong to tenant ${event.tenant_id}`);
    }
  }
}

function summarise(e: EventEnvelope): string {
  const p = e.payload as Record<string, any>;
  switch (e.event_type) {
    case 'codebase.ingested':
      return `codebase ingested from ${p.codebase_path}`;
    case 'codebase.analyzed':
      return `codebase analysed: ${p.surface_count ?? (p.testable_surfaces ?? []).length} testable surfaces`;
    case 'test.created':
      return `test "${p.test_name}" created (${p.test_type})`;
    case 'test.failed':
      return `test failed: ${p.failure_details?.error_message ?? p.failure_details?.failure_type ?? 'unknown error'}`;
    case 'healing.completed':
      return p.success
        ? `healed ${p.original_selector ?? 'selector'} → ${p.healed_selector} (confidence ${p.confidence}${p.applied ? ', applied' : ', needs review'})`
        : p.outcome === 'not_needed'
          ? 'heal run: the test passed as it was, nothing to heal'
          : p.reason
            ? `not healed: ${String(p.reason).slice(0, 300)}`
            : 'healing found no replacement';
    case 'patterns.failure-cluster':
      return `${p.failure_count} similar failures across ${(p.test_ids ?? []).length} tests: ${p.error_signature}`;
    default:
      return e.event_type;
  }
}
