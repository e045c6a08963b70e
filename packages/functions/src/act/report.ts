import type { Step } from '@svc/core/contracts/steps';
import type { ActResult } from '@svc/core/contracts/act';
import type { GenerationRunResult } from '../generation/execute-once.ts';

/**
 * The act answer from the one run: each step's outcome (its error naming it), the page
 * the browser ended on, what the console and the network said, and the steps with any
 * healed selector applied, so they can be passed again or saved as they worked.
 */
export function actReport(steps: Step[], startUrl: string, run: GenerationRunResult): Omit<ActResult, 'instruction' | 'saved_test'> {
  const passed = run.status === 'passed' || run.status === 'healed';
  const outcomes = run.steps.map((s) => ({
    index: s.index,
    type: s.type,
    description: s.description,
    status: s.status,
    duration_ms: s.duration_ms,
    ...(s.error && { error: `step ${s.index + 1} (${s.description}): ${s.error.message}` }),
    ...(s.healed && { healed: s.healed }),
    ...(s.healed_fields && { healed_fields: s.healed_fields }),
    // What an extract step read comes back with its outcome, as the run recorded it (masked).
    ...(s.extracted !== undefined && { extracted: s.extracted }),
  }));
  const page = run.final_page;
  return {
    status: passed ? 'passed' : 'failed',
    start_url: startUrl,
    url: page?.url ?? null,
    title: page?.title ?? null,
    duration_ms: run.duration_ms,
    error: passed ? null : (run.error_message ?? `the actions ${run.status}`),
    outcomes,
    steps: withHeals(steps, run),
    performed: outcomes.filter((o) => o.status === 'passed').length,
    console_errors: run.console_errors,
    failed_requests: run.failed_requests,
    screenshot: page?.screenshot ?? null,
    ...(page?.screenshot_note && { screenshot_note: page.screenshot_note }),
  };
}

/** A step whose locator was healed carries the healed selector (a Playwright selector string); an extract step, each healed field's. */
function withHeals(steps: Step[], run: GenerationRunResult): Step[] {
  return steps.map((step, i) => {
    const fields = run.steps[i]?.healed_fields;
    if (step.type === 'extract' && step.fields && fields?.length) {
      const patched = { ...step.fields };
      for (const h of fields) if (patched[h.field]) patched[h.field] = { ...patched[h.field], selector: h.healed };
      return { ...step, fields: patched };
    }
    const healed = run.steps[i]?.healed?.healed;
    if (!healed) return step;
    if (step.type === 'assert' && 'selector' in step.assertion) return { ...step, assertion: { ...step.assertion, selector: healed } } as Step;
    return 'selector' in step && step.selector !== undefined ? ({ ...step, selector: healed } as Step) : step;
  });
}
