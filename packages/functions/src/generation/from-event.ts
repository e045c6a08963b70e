import type { FromEventInput } from '@svc/core/intelligence/generation/contracts';
import { consoleShowsError, reproduceEvent } from '@svc/core/intelligence/generation/from-event';
import { checkedTest, finishGeneration, type FinishInput } from './finish.ts';

/** How long the run waits for the replayed page to settle before its console is read. */
const SETTLE = { quietMs: 1_000, maxMs: 5_000 };

/**
 * A production failure event → a regression test that replays it, executed once: what
 * POST /api/test/from-event answers, and what an automation integration's
 * failure.reported event gets (docs/automation.md) — one code path for both.
 */
export async function generateFromFailureEvent(o: Pick<FinishInput, 'store' | 'publisher' | 'executor' | 'organizationId' | 'requestId'> & { project: { id: string; app_url: string | null }; input: FromEventInput }) {
  const { input } = o;
  const repro = reproduceEvent(input.event, { name: input.name });
  // The format has no console assertion: the run's console decides whether the error came back,
  // once the page has settled (the run ended before an error thrown after a fetch; found by QA).
  const judge = (r: { console_errors: string[] }) => (consoleShowsError(r.console_errors, input.event.message) ? `the production error showed up again in the console: ${repro.console_error}` : undefined);
  // Only a re-sent failed request is a check of the failure in the test itself; a test without one
  // passes while the error still happens, so its pass is not a regression test's (found by QA).
  const unguarded = repro.failing_request
    ? undefined
    : { rule: 'cannot-catch-the-error', message: `the test has no check that fails when the error happens (the test format has no console assertion; only this run's console was read, for ${SETTLE.maxMs / 1000} s at most after the last step): it would pass while "${repro.console_error}" still happens, so a passing run is not created in tests and its confidence is low; add a check of what the error breaks (expect text "…", expect heading "…") and save it yourself` };
  const done = await finishGeneration({
    store: o.store, publisher: o.publisher, executor: o.executor, organizationId: o.organizationId, requestId: o.requestId,
    projectId: o.project.id, appUrl: o.project.app_url, baseUrl: input.base_url, execute: input.execute, source: 'event',
    test: checkedTest(repro.test), generatorConfidence: repro.confidence, judge, settle: SETTLE, ...(unguarded && { unguarded }),
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
      : reproduced === false && done.execution.status === 'passed' && unguarded
        ? `not reproduced: the error did not show up in the console (waited for the page to settle: no request for ${SETTLE.quietMs / 1000} s, at most ${SETTLE.maxMs / 1000} s), and the test has no check that would catch it, so it was not saved as a passing regression test`
        : undefined;
  return { ...done, test: repro.test, skipped: repro.skipped, console_error: repro.console_error, failing_request: repro.failing_request ?? null, reproduced, ...(why ? { reproduction_note: why } : {}) };
}
