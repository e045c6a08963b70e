import { limits } from '../contracts/limits.ts';
import { TestSpecSchema } from '../contracts/test-spec.ts';
import { AppError } from '../errors.ts';
import type { GraphDeps } from './deps.ts';
import type { HealPatch } from './healer.ts';
import { runLimit, testCostLimit } from './limits.ts';
import { testIdOf } from './spec-to-definition.ts';
import { nodeEvents } from './node-events.ts';
import { publishHealOutcome } from './heal-events.ts';
import { resultOf, type HealRecord, type RunGraphState } from './state.ts';
import type { Write } from './writes.ts';

export type HealRoute = 'execute_test' | 'await_heal_approval' | 'done';

/**
 * self_heal for one failed test. Asks the Healer for a fix; a locator-only fix at
 * confidence ≥ its threshold (the project's, default 0.8) is applied at once (unless healing approval is required), anything
 * else interrupts before the fix is applied. After approval the node runs again and
 * applies the approved (or modified) fix. Cannot heal, or SELF_HEAL_MAX_RETRIES fixes
 * tried: the test stays FAILED and its iteration ends (→ report).
 */
export async function selfHeal(deps: GraphDeps, threadId: string, testId: string): Promise<{ route: HealRoute; state: RunGraphState }> {
  const { state } = await deps.checkpointer.load(threadId);
  const resumed = routeIfSettled(state, testId);
  if (resumed) return { route: resumed, state };
  const signal = deps.signal(threadId);
  if (signal.aborted) throw new AppError('CONFLICT', 'the run was cancelled');
  const spec = state.test_plan.find((t) => t.id === testId)!;
  const taskId = state.test_plan.indexOf(spec) + 1;
  const now = () => deps.clock.now().toISOString();
  const ev = nodeEvents(deps, threadId);
  const h: HealRecord = state.graph.heal[testId] ?? { status: 'none', attempts: 0, reason: null, proposal: null };

  const stop = state.graph.stop ?? runLimit(state, 'self_heal', testId, now());
  if (stop) {
    const committed = await deps.checkpointer.commit(threadId, { node: 'self_heal', taskId, metadata: { test_id: testId }, writes: (head) => (head.graph.stop ? [] : [{ channel: 'limit', value: { ...stop, stop: true } }]) });
    return { route: 'done', state: committed.state };
  }

  const t0 = await ev.start('self_heal', testId);
  let writes: Write[];
  let route: HealRoute;
  if (h.status === 'approved') {
    ({ writes, route } = apply(testId, h, spec.name));
  } else {
    ({ writes, route } = await propose(deps, state, testId, h, signal, now()));
  }
  const committed = await deps.checkpointer.commit(threadId, { node: 'self_heal', taskId, metadata: { test_id: testId, route }, writes: () => [...writes, { channel: 'test_step', value: testId }] });
  const after = committed.state.graph.heal[testId];
  await deps.events.append(threadId, { type: 'tool_call', data: { tool: 'healer', test_id: testId, input: `heal ${spec.name} (attempt ${after?.attempts ?? 0})`, status: after?.status ?? 'none', ...(after?.reason ? { error: after.reason } : {}) } });
  await ev.log(route === 'done' ? 'warn' : 'info', `${spec.name}: ${describe(route, after)}`, testId);
  await ev.end('self_heal', t0, committed.state, testId);
  if (route === 'done') await publishHealOutcome(deps, threadId, committed.state, testId);
  return { route, state: committed.state };
}

/** What a resumed self_heal does when the checkpoint already holds its outcome. */
function routeIfSettled(state: RunGraphState, testId: string): HealRoute | null {
  const h = state.graph.heal[testId];
  const r = resultOf(state, testId);
  if (state.graph.rerun.includes(testId)) return 'execute_test';
  if (h?.status === 'awaiting_approval') return 'await_heal_approval';
  if (h?.status === 'approved') return null;
  if (!r || r.status !== 'FAILED') return 'done';
  if (h && (h.status === 'rejected' || h.status === 'cannot_heal' || h.status === 'exhausted')) return 'done';
  return null;
}

async function propose(deps: GraphDeps, state: RunGraphState, testId: string, h: HealRecord, signal: AbortSignal, at: string): Promise<{ writes: Write[]; route: HealRoute }> {
  const settle = (status: HealRecord['status'], reason: string, extra: Write[] = []): { writes: Write[]; route: HealRoute } => ({
    writes: [...extra, { channel: 'heal', value: { test_id: testId, record: { ...h, status, reason } } }],
    route: 'done',
  });
  const result = resultOf(state, testId)!;
  const kind = String(result.metadata.failure_kind ?? 'unknown');
  if (h.attempts >= limits.SELF_HEAL_MAX_RETRIES) return settle('exhausted', `max retries reached: ${limits.SELF_HEAL_MAX_RETRIES} fixes tried; the test stays failed`);
  if (kind !== 'locator') return settle('cannot_heal', `cannot heal ${/^[aeiou]/.test(kind) ? 'an' : 'a'} ${kind} failure: only locator failures are healed (timeouts and assertions never are)`);
  const costLimit = testCostLimit(state, testId, 'self_heal', at);
  if (costLimit) return settle('cannot_heal', costLimit.message, [{ channel: 'limit', value: { ...costLimit, stop: false } }]);
  if (!deps.healer) return settle('cannot_heal', 'cannot heal: no healer is configured');

  const spec = state.test_plan.find((t) => t.id === testId)!;
  // A failed step's index counts the flows' steps expanded, and a fix of a flow's step
  // belongs in the flow (used by other tests too): a test patch cannot say it. Flow steps
  // heal in-step during runs (the heal is reported as a suggestion); nothing is written back.
  const use = spec.steps.findIndex((s) => s.type === 'use');
  if (use >= 0) return settle('cannot_heal', `cannot heal: the test uses flows (steps.${use} uses ${JSON.stringify((spec.steps[use] as { flow: string }).flow)}): a fix is not written into the test or its flows; in-step healing repairs flow steps during runs and reports the healed selector as a suggestion`);
  const previous = h.proposal ? [h.proposal as unknown as HealPatch] : [];
  let outcome;
  try {
    const cfg = state.graph.config;
    outcome = await deps.healer.heal(
      { test: spec, result, previous, attempt: h.attempts + 1, app_url: state.app_url, organization_id: cfg.organization_id, project_id: cfg.project_id, thread_id: cfg.thread_id, extras: deps.testExtras?.(testIdOf(spec)) },
      { signal },
    );
  } catch (err) {
    return settle('cannot_heal', `cannot heal: the healer failed: ${(err as Error).message}`);
  }
  const usage: Write[] = outcome.usage ? [{ channel: 'usage', value: { ...outcome.usage, test_id: testId } }] : [];
  if (!outcome.healed) return settle('cannot_heal', `cannot heal: ${outcome.reason}`, usage);
  const patched = TestSpecSchema.safeParse({ ...outcome.patch.test, id: testId });
  if (!patched.success) return settle('cannot_heal', 'cannot heal: the healer proposed an invalid test', usage);
  const proposal = { ...outcome.patch, test: patched.data } as unknown as Record<string, unknown>;
  const threshold = outcome.patch.threshold ?? limits.SELF_HEAL_CONFIDENCE_THRESHOLD;
  const auto = !state.graph.config.require_healing_approval && outcome.patch.kind === 'locator' && outcome.patch.confidence >= threshold;
  const record: HealRecord = { status: auto ? 'approved' : 'awaiting_approval', attempts: h.attempts + 1, reason: null, proposal };
  if (!auto) {
    const why = state.graph.config.require_healing_approval ? 'healing approval is required' : outcome.patch.kind !== 'locator' ? `the fix changes ${outcome.patch.kind}, not only locators` : `confidence ${outcome.patch.confidence} is below ${threshold}`;
    return { writes: [...usage, { channel: 'heal', value: { test_id: testId, record: { ...record, reason: `waiting for approval: ${why}` } } }], route: 'await_heal_approval' };
  }
  const applied = apply(testId, record, spec.name);
  return { writes: [...usage, ...applied.writes], route: applied.route };
}

/** Applies an approved fix: the patched test replaces the planned one and runs again. */
function apply(testId: string, h: HealRecord, name: string): { writes: Write[]; route: HealRoute } {
  const test = TestSpecSchema.parse((h.proposal as { test: unknown }).test);
  return {
    writes: [
      { channel: 'heal', value: { test_id: testId, record: { ...h, status: 'applied', reason: null } } },
      { channel: 'rerun', value: { test_id: testId, on: true } },
      { channel: 'plan_test', value: test },
      { channel: 'message', value: { role: 'assistant', name: 'self_healer', content: `applied a fix to ${name}; re-running it` } },
    ],
    route: 'execute_test',
  };
}

function describe(route: HealRoute, h: HealRecord | undefined): string {
  if (route === 'execute_test') return 'fix applied; re-running the test';
  if (route === 'await_heal_approval') return h?.reason ?? 'waiting for approval of the fix';
  return h?.reason ?? 'not healed; the test stays failed';
}
