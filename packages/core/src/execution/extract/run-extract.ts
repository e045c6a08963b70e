import { EXTRACT_MAX_RESULT_CHARS, EXTRACT_MAX_SNAPSHOT_CHARS, type ExtractField, type ExtractStep } from '../../contracts/steps.ts';
import { StepFailure, type ExtractedValue, type StepContext, type UiSession } from '../types.ts';
import { extractWithModel, noModelFailure, type ExtractModel } from './ask-model.ts';

/** Reads one field (the runner's: located, fingerprinted and healed like a step's element). */
export type ReadField = (name: string, field: ExtractField) => Promise<ExtractedValue>;

/**
 * Performs an extract step on the session's page: the fields by their selectors (no
 * model), one at a time through `readField`, or the instruction answered by the model from
 * the page's text snapshot and validated against the schema. Returns the value; a value
 * whose JSON is larger than EXTRACT_MAX_RESULT_CHARS fails the step rather than being cut,
 * so what a later step or the report sees is always the whole of it.
 */
export async function runExtract(step: ExtractStep, session: UiSession, ctx: StepContext, model: ExtractModel | undefined, readField: ReadField): Promise<unknown> {
  let value: unknown;
  if (step.fields) {
    if (!session.extractField) throw new StepFailure('unsupported', 'this browser driver cannot extract fields');
    const out: Record<string, ExtractedValue> = {};
    // In order, one after another: a field that fails stops the step, naming it.
    for (const [name, field] of Object.entries(step.fields)) out[name] = await readField(name, field);
    value = out;
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
