import type { FromEventInput } from '@svc/core/intelligence/generation/contracts';
import { CONSOLE_CHECK_SETTLE, consoleShowsError, reproduceEvent } from '@svc/core/intelligence/generation/from-event';
import { checkedTest, finishGeneration, type FinishInput } from './finish.ts';

/** How long the run waits for the replayed page to settle before its console is read (as the test's console check does). */
const SETTLE = CONSOLE_CHECK_SETTLE;

/**
 * A production failure event → a regression test that replays it, executed once: what
 * POST /api/test/from-event answers, and what an automation integration's
 * failure.reported event gets (docs/automation.md) — one code path for both.
 */
export async function generateFromFailureEvent(o: Pick<FinishInput, 'store' | 'publisher' | 'executor' | 'organizationId' | 'requestId'> & { project: { id: string; app_url: string | null }; input: FromEventInput }) {
  const { input } = o;
  const repro = reproduceEvent(input.event, { name: input.name });
  // The test's no_console_error assertion fails while the error happens. A passing run's console is
  // read once more after the page settled: an error later than the check still counts as reproduced.
  const judge = (r: { console_errors: string[] }) => (consoleShowsError(r.console_errors, input.event.message) ? `the production error showed up again in the console: ${repro.console_error}` : undefined);
  // The console check, or a re-sent failed request, fails while the error happens. Without either (a
  // message no console shows, such as a cross-origin "Script error.") the test passes while the error
  // still happens, so its pass is not a regression test's (found by QA).
  const unguarded = repro.failing_request || repro.console_check
    ? undefined
    : { rule: 'cannot-catch-the-error', message: `the test has no check that fails when the error happens (its message "${repro.console_error}" is not the error's own text, so no console shows it to look for, and no request failed; only this run's console was read, for ${SETTLE.maxMs / 1000} s at most after the last step): it would pass while the error still happens, so a passing run is not created in tests and its confidence is low; add a check of what the error breaks (expect text "…", expect heading "…") and save it yourself` };
  const done = await finishGeneration({
    store: o.store, publisher: o.publisher, executor: o.executor, organizationId: o.organizationId, requestId: o.requestId,
    projectId: o.project.id, appUrl: o.project.app_url, baseUrl: input.base_url, execute: input.execute, source: 'event',
    test: checkedTest(repro.test), generatorConfidence: repro.confidence, judge, settle: SETTLE, ...(unguarded && { unguarded }),
  });
  // Reproduced: the error came back in the console, or the re-sent request failed as it did in production (the same
  // class of status: a 500 again, not a 401 because the replay has no body or credentials; found by QA). A replay that
  // broke earlier proves neither.
  const statusStep = repro.failing_request ? repro.test.steps.length - 1 : -1;
  const consoleAgain = /^the production error showed up|\bno_console_error: expected no console error/.test(done.execution.error ?? '');
  const got = Number(/\bgot (\d{3})\b/.exec(done.execution.error ?? '')?.[1]);
  const sameFailure = done.execution.failed_step === statusStep && !!repro.failing_request && Math.floor(got / 100) === Math.floor(repro.failing_request.status / 100);
  const reproduced = done.execution.status === 'not_executed' ? null : done.execution.status === 'failed' && (consoleAgain || sameFailure);
  const why =
    reproduced === false && done.execution.failed_step === statusStep && repro.failing_request && Number.isFinite(got)
      ? `not reproduced: production answered ${repro.failing_request.status}, the replay got ${got} (the replayed request has no body or credentials)`
      : reproduced === false && done.execution.status === 'passed' && unguarded
        ? `not reproduced: the error did not show up in the console (waited for the page to settle: no request for ${SETTLE.quietMs / 1000} s, at most ${SETTLE.maxMs / 1000} s), and the test has no check that would catch it (its message is not one a console shows), so it was not saved as a passing regression test`
        : undefined;
  return { ...done, test: repro.test, skipped: repro.skipped, console_error: repro.console_error, failing_request: repro.failing_request ?? null, reproduced, ...(why ? { reproduction_note: why } : {}) };
}
