import type { Step, TestDefinition } from '../../contracts/steps.ts';
import { StepFailure, type HttpResult } from '../types.ts';
import { bodyHint } from './check-api-assertion.ts';

/**
 * Whether the test checks the status of the response of its request step `index`: an
 * assert step with a status assertion after it and before the next request step, or, for
 * the test's last request step, a trailing status assertion. API assertions check the
 * latest response, so these are exactly the checks that can see this one.
 */
export function statusIsChecked(test: Pick<TestDefinition, 'steps' | 'assertions'>, index: number): boolean {
  for (const step of test.steps.slice(index + 1)) {
    if (step.type === 'request') return false;
    if (isStatusCheck(step)) return true;
  }
  return test.assertions.some((a) => a.type === 'status');
}

function isStatusCheck(step: Step): boolean {
  return step.type === 'assert' && step.assertion.type === 'status';
}

/**
 * A server error (5xx) that no status assertion looks at fails the request step: a test of
 * an API that answered 500 passed because it checked nothing, or only a header (found by
 * QA). A test that expects the error says so with a status assertion, which then decides.
 * 4xx answers are left to the test's own assertions: an error path is tested on purpose
 * and often checked through its body.
 */
export function failOnUncheckedServerError(response: HttpResult, checked: boolean): void {
  if (checked || response.status < 500) return;
  throw new StepFailure(
    'assertion',
    `the server answered ${response.status}, a server error, and no status assertion checks this response${bodyHint(response)}; if the error is expected, assert it (e.g. {"type": "status", "equals": ${response.status}})`,
    { actual: response.status },
  );
}
