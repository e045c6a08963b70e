import type { Step } from '@svc/core/contracts/steps';
import type { ExtractResult } from '@svc/core/contracts/extract';
import { StepFailure } from '@svc/core/execution/types';
import { extractWithModel, type ExtractModel } from '@svc/core/execution/extract/ask-model';
import { assertBounded } from '@svc/core/execution/extract/run-extract';
import type { GenerationRunResult } from '../generation/execute-once.ts';
import { actReport } from '../act/report.ts';

/** The answer of an extraction by fields: the run's outcomes, the extract step's value when every step passed. */
export function fieldsResult(steps: Step[], startUrl: string, run: GenerationRunResult, extractIndex: number): ExtractResult {
  const report = actReport(steps, startUrl, run);
  const passed = report.status === 'passed';
  return { ...common(report), data: passed ? (run.steps[extractIndex]?.extracted ?? null) : null };
}

/**
 * The answer of an extraction by instruction: when the steps passed, the model reads the
 * final page's text and its answer is validated against the schema; a model failure or an
 * invalid answer is a failed outcome of the extraction (listed last), not an HTTP error.
 */
export async function modelResult(steps: Step[], startUrl: string, run: GenerationRunResult, ask: { model: ExtractModel; instruction: string; schema: Record<string, unknown> }): Promise<ExtractResult> {
  const report = actReport(steps, startUrl, run);
  const index = report.outcomes.length;
  const description = `extract with a model: ${ask.instruction.slice(0, 80)}`;
  const base = common(report);
  if (report.status !== 'passed') return { ...base, data: null, steps: [...base.steps, { index, type: 'extract', description, status: 'skipped', duration_ms: 0 }] };
  const snapshot = run.final_page?.snapshot;
  const t0 = Date.now();
  const failed = (message: string, extra: Partial<ExtractResult> = {}): ExtractResult => {
    const error = `step ${index + 1} (${description}): ${message}`;
    return { ...base, ...extra, status: 'failed', data: null, error, steps: [...base.steps, { index, type: 'extract', description, status: 'failed', duration_ms: Date.now() - t0, error }] };
  };
  if (!snapshot) return failed('the page\'s text could not be read');
  const sized = { snapshot: { chars: snapshot.chars, truncated: snapshot.truncated } };
  try {
    const answer = await extractWithModel(ask.model, { instruction: ask.instruction, schema: ask.schema, page: { url: run.final_page!.url, title: run.final_page!.title, snapshot } });
    assertBounded(answer.data);
    const outcome = { index, type: 'extract', description, status: 'passed' as const, duration_ms: Date.now() - t0 };
    return { ...base, ...sized, data: answer.data, model: answer.model, steps: [...base.steps, outcome], performed: base.performed + 1 };
  } catch (err) {
    if (!(err instanceof StepFailure)) throw err;
    const errors = err.details?.errors as ExtractResult['validation_errors'] | undefined;
    return failed(err.message, { ...sized, ...(errors && { validation_errors: errors }) });
  }
}

function common(report: ReturnType<typeof actReport>): Omit<ExtractResult, 'data'> {
  return {
    status: report.status,
    start_url: report.start_url,
    url: report.url,
    title: report.title,
    duration_ms: report.duration_ms,
    error: report.error,
    steps: report.outcomes,
    performed: report.performed,
    console_errors: report.console_errors,
  };
}
