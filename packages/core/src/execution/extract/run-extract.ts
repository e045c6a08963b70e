import { EXTRACT_MAX_RESULT_CHARS, EXTRACT_MAX_SNAPSHOT_CHARS, type ExtractStep } from '../../contracts/steps.ts';
import { StepFailure, type StepContext, type UiSession } from '../types.ts';
import { extractWithModel, noModelFailure, type ExtractModel } from './ask-model.ts';

/**
 * Performs an extract step on the session's page: the fields by their selectors (no
 * model), or the instruction answered by the model from the page's text snapshot and
 * validated against the schema. Returns the value; a value whose JSON is larger than
 * EXTRACT_MAX_RESULT_CHARS fails the step rather than being cut, so what a later step or
 * the report sees is always the whole of it.
 */
export async function runExtract(step: ExtractStep, session: UiSession, ctx: StepContext, model: ExtractModel | undefined): Promise<unknown> {
  let value: unknown;
  if (step.fields) {
    if (!session.extract) throw new StepFailure('unsupported', 'this browser driver cannot extract fields');
    value = await session.extract(step.fields, ctx);
  } else {
    // Checked before the page is read: without a model there is nothing to read it for.
    if (!model?.llm.configured) throw noModelFailure();
    if (!session.snapshot) throw new StepFailure('unsupported', 'this browser driver cannot read a page snapshot');
    const snapshot = await session.snapshot(EXTRACT_MAX_SNAPSHOT_CHARS, ctx);
    const title = session.title ? await session.title().catch(() => null) : null;
    value = (await extractWithModel(model, { instruction: step.instruction!, schema: step.schema!, page: { url: session.url(), title, snapshot } })).data;
  }
  assertBounded(value);
  return value;
}

/** A result too large to keep whole fails: narrow the fields or the instruction. */
export function assertBounded(value: unknown): void {
  const chars = JSON.stringify(value)?.length ?? 0;
  if (chars > EXTRACT_MAX_RESULT_CHARS) throw new StepFailure('assertion', `the extracted value is ${chars} characters of JSON, over the cap of ${EXTRACT_MAX_RESULT_CHARS}: narrow the selectors or the instruction`, { chars });
}
