import type { EventPayloadInput } from '../contracts/events.ts';
import { limits } from '../contracts/limits.ts';
import { eventSources, healingCompleted } from '../events/producers.ts';
import type { GraphDeps } from './deps.ts';
import { isUuid, publishedTestId, publishOrWarn, selectorOf, stableEventId } from './execution-events.ts';
import { resultOf, type RunGraphState } from './state.ts';

/** A healing.completed payload without the test and run it is about. */
type Conclusion = Pick<EventPayloadInput<'healing.completed'>, 'success' | 'applied' | 'healed_selector' | 'confidence'> & {
  original_selector?: string;
  healing_method?: string;
  outcome: 'healed' | 'cannot_heal' | 'exhausted' | 'rejected' | 'not_needed';
  reason?: string;
  proposed_selector?: string;
  step_index?: number;
  field?: string;
  attempt: number;
};

/**
 * What the healing of one test in a run came to, as healing.completed payloads (spec rule
 * 4: published after every heal attempt, successful or not). Read from the run state once
 * the test's iteration has an answer:
 *
 * - the result is HEALED after the self-healer's fix was applied: its re-run passed;
 *   success, applied. (In-step heals publish their own event as they happen.)
 * - the self-healer gave up (cannot_heal, exhausted) or a reviewer rejected its fix:
 *   success false, no healed selector (a rejected proposal is named in `proposed_selector`).
 *   A run publishes this only for a locator failure or when the run was asked to heal
 *   (trigger heal): an assertion that failed in an ordinary run was never a heal attempt.
 * - a heal run (trigger heal) whose test passed as it is: outcome not_needed.
 *
 * Anything else (still retrying, waiting for approval, healing off) concludes nothing yet.
 */
export function healConclusions(state: RunGraphState, testId: string): Conclusion[] {
  const result = resultOf(state, testId);
  if (!result) return [];
  const requested = state.graph.config.trigger === 'heal';
  const h = state.graph.heal[testId];
  const attempt = typeof result.metadata.attempt === 'number' ? result.metadata.attempt : 1;
  const proposal = h?.proposal as { changes?: Array<Record<string, unknown>>; confidence?: number; method?: unknown } | null | undefined;
  const change = proposal?.changes?.find((c) => typeof c.to === 'string');

  // In-step heals publish their own healing.completed as they happen (store-knowledge.ts);
  // what is left is the self-healer's applied fix, concluded when its re-run passed.
  if (result.status === 'HEALED') {
    if (h?.status !== 'applied' || !change) return [];
    const confidence = proposal?.confidence ?? 0;
    // `applied` says applied automatically (at or above the threshold); a fix a reviewer approved below it was not.
    return [{ success: true, applied: confidence >= limits.SELF_HEAL_CONFIDENCE_THRESHOLD, original_selector: String(change.from), healed_selector: String(change.to), confidence, ...(typeof proposal?.method === 'string' && { healing_method: proposal.method }), outcome: 'healed', ...(typeof change.step === 'number' && { step_index: change.step }), attempt }];
  }

  if (result.status === 'FAILED' && h && (h.status === 'cannot_heal' || h.status === 'exhausted' || h.status === 'rejected')) {
    const kind = String(result.metadata.failure_kind ?? 'unknown');
    if (!requested && kind !== 'locator' && h.attempts === 0) return [];
    const step = typeof result.metadata.failed_step === 'number' ? result.metadata.failed_step : undefined;
    const spec = state.test_plan.find((t) => t.id === testId);
    const original = change ? String(change.from) : step === undefined ? undefined : selectorOf(spec?.steps, step);
    return [{
      success: false,
      applied: false,
      healed_selector: null,
      confidence: h.status === 'rejected' ? (proposal?.confidence ?? 0) : 0,
      outcome: h.status,
      reason: (h.reason ?? h.status).slice(0, 2000),
      ...(original !== undefined && { original_selector: original }),
      ...(h.status === 'rejected' && change && { proposed_selector: String(change.to) }),
      ...(step !== undefined && { step_index: step }),
      attempt,
    }];
  }

  if (requested && result.status === 'PASSED') {
    return [{ success: false, applied: false, healed_selector: null, confidence: 0, outcome: 'not_needed', reason: 'the test passed as it is: nothing to heal', attempt }];
  }
  return [];
}

/**
 * Publishes healConclusions for a test (source svc.healer, correlation id the run's id).
 * Event ids come from the run, the case, the attempt and the heal's place, so a node that
 * runs again after a crash publishes the same ids and consumers count them once. Like the
 * execution events, nothing is published without a publisher (svc run) or for a test that
 * is not a stored one, and a refused event is a warning in the run's log.
 */
export async function publishHealOutcome(deps: GraphDeps, threadId: string, state: RunGraphState, testId: string): Promise<void> {
  if (!deps.publisher) return;
  const cfg = state.graph.config;
  const storedId = publishedTestId(state, testId);
  if (!storedId) return;
  for (const [i, c] of healConclusions(state, testId).entries()) {
    await publishOrWarn(deps, threadId, testId, 'healing.completed', () => healingCompleted(
      { source: eventSources.healer, tenant_id: cfg.organization_id, correlation_id: state.run_id, clock: deps.clock, ids: { uuid: () => stableEventId(state.run_id, testId, c.attempt, `healing.completed#${c.outcome}#${c.step_index ?? ''}#${c.field ?? ''}#${i}`) } },
      { test_id: storedId, run_id: state.run_id, ...(isUuid(cfg.project_id) && { project_id: cfg.project_id }), ...c },
    ));
  }
}
