import type { ConsumerDefinition, EventHandler } from './consumer.ts';

/** What the healer asks of whoever can start runs (the run graph lives outside core). */
export interface HealRunRequest {
  /** The healing.requested event: its id names the run's thread, so a redelivery starts nothing twice. */
  event_id: string;
  test_id: string;
  /** The run the failure was seen in: the heal run tests the same code (its source). */
  run_id?: string;
  requested_by?: string;
}

export type HealRunOutcome =
  | { status: 'started'; run_id: string; thread_id: string }
  | { status: 'already_started'; thread_id: string; run_id?: string }
  | { status: 'skipped'; reason: string };

export type StartHealRun = (tenantId: string, request: HealRunRequest) => Promise<HealRunOutcome>;

/** Thread of the heal run a healing.requested event starts (POST /api/heal answers with it). */
export const healRunThreadId = (eventId: string) => `heal-${eventId}`;

/**
 * The healer consumer (spec: healing.requested → healer). A request starts a heal run of
 * the test (trigger heal, healing on): the run executes the test in a browser, heals a
 * broken locator on the page (in-step, else the self_heal node), validates the fix by
 * running the test again, and publishes healing.completed — success or not, and
 * `not_needed` when the test passed as it is. Failed tests of ordinary runs are healed
 * inside their own run, so test.failed is not routed here (docs/decisions.md).
 *
 * A request for a test the tenant does not have, a project with healing disabled, or a
 * request the run graph refuses (no app URL...) is skipped with its reason in the log;
 * anything else (the store or the workflow unreachable) fails the handler, so the event
 * is retried and then dead-lettered.
 */
export function healerConsumer(start: StartHealRun): ConsumerDefinition {
  const handler: EventHandler = async (event, ctx) => {
    const p = event.payload;
    const outcome = await start(event.tenant_id, {
      event_id: event.event_id,
      test_id: String(p.test_id),
      ...(typeof p.run_id === 'string' ? { run_id: p.run_id } : {}),
      ...(typeof p.requested_by === 'string' ? { requested_by: p.requested_by } : {}),
    });
    const fields = { event_id: event.event_id, tenant_id: event.tenant_id, test_id: p.test_id, ...outcome };
    if (outcome.status === 'skipped') ctx.log.warn('heal request skipped', fields);
    else ctx.log.info(outcome.status === 'started' ? 'heal run started' : 'heal run already started', fields);
  };
  return { name: 'healer', timeoutMs: 30_000, handlers: { 'healing.requested': handler } };
}
