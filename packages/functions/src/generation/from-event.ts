import type { FromEventInput } from '@svc/core/intelligence/generation/contracts';
import { consoleShowsError, reproduceEvent } from '@svc/core/intelligence/generation/from-event';
import { checkedTest, finishGeneration, type FinishInput } from './finish.ts';

/**
 * A production failure event → a regression test that replays it, executed once: what
 * POST /api/test/from-event answers, and what an automation integration's
 * failure.reported event gets (docs/automation.md) — one code path for both.
 */
export async function generateFromFailureEvent(o: Pick<FinishInput, 'store' | 'publisher' | 'executor' | 'organizationId' | 'requestId'> & { project: { id: string; app_url: string | null }; input: FromEventInput }) {
  const { input } = o;
  const repro = reproduceEvent(input.event, { name: input.name });
  // The format has no console assertion: the run's console decides whether the error came back.
  const judge = (r: { console_errors: string[] }) => (consoleShowsError(r.console_errors, input.event.message) ? `the production error showed up again in the console: ${repro.console_error}` : undefined);
  const done = await finishGeneration({
    store: o.store, publisher: o.publisher, executor: o.executor, organizationId: o.organizationId, requestId: o.requestId,
    projectId: o.project.id, appUrl: o.project.app_url, baseUrl: input.base_url, execute: input.execute, source: 'event',
    test: checkedTest(repro.test), generatorConfidence: repro.confidence, judge,
  });
  // Reproduced: the error came back in the console, or the re-sent request failed as it did in production (the same
  // class of status: a 500 again, not a 401 because the replay has no body or credentials; found by QA). A replay that
  // broke earlier proves neither.
  const statusStep = repro.failing_request ? repro.test.steps.length - 1 : -1;
  const consoleAgain = /^the production error showed up/.test(done.execution.error ?? '');
  const got = Number(/\bgot (\d{3})\b/.exec(done.execution.error ?? '')?.[1]);
  const sameFailure = done.execution.failed_step === statusStep && !!repro.failing_request && Math.floor(got / 100) === Math.floor(repro.failing_request.status / 100);
  const reproduced = done.execution.status === 'not_executed' ? null : done.execution.status === 'failed' && (consoleAgain || sameFailure);
  const why =
    reproduced === false && done.execution.failed_step === statusStep && repro.failing_request && Number.isFinite(got)
      ? `not reproduced: production answered ${repro.failing_request.status}, the replay got ${got} (the replayed request has no body or credentials)`
      : undefined;
  return { ...done, test: repro.test, skipped: repro.skipped, console_error: repro.console_error, failing_request: repro.failing_request ?? null, reproduced, ...(why ? { reproduction_note: why } : {}) };
}
