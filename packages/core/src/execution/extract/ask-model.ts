import type { LlmCallContext, LlmClient } from '../../llm/types.ts';
import { LlmError } from '../../llm/errors.ts';
import { StepFailure, type PageSnapshot } from '../types.ts';
import { loadJsonSchemaSupport, schemaViolations } from '../api/check-api-assertion.ts';
import { preview } from '../api/json-values.ts';

/** The model an extract step asks, bound to who pays for the call (the run's organization). */
export interface ExtractModel {
  llm: LlmClient;
  context: LlmCallContext;
}

export interface ExtractRequest {
  instruction: string;
  schema: Record<string, unknown>;
  page: { url: string; title: string | null; snapshot: PageSnapshot };
}

/** Room for a sizeable table as JSON; the extracted value is capped well below this anyway. */
const MAX_ANSWER_TOKENS = 4_096;

const SYSTEM = [
  'You extract structured data from one web page.',
  "You get the page's URL, its title and its visible content as an accessibility snapshot (one line per element: role, \"accessible name\", text).",
  'Answer with ONE JSON value that satisfies the given JSON Schema, taken only from what the page shows; where the page does not show a value, use null if the schema allows it.',
  'No prose, no code fence: the JSON only.',
].join('\n');

/** Why the model cannot be asked: not configured. A failure of the step, never a guess. */
export const noModelFailure = () =>
  new StepFailure('configuration', 'NO_MODEL: extracting with an instruction needs a language model and none is configured (SVC_LLM_PROVIDERS); use fields with selectors to extract without one', { reason: 'NO_MODEL' });

/**
 * Asks the model for the data the instruction describes, from the page's text snapshot,
 * and checks its answer: parsed as JSON and validated against the schema. An answer that
 * is not JSON, or does not match, fails with StepFailure('assertion') carrying the
 * validation errors — the answer is never repaired or half-used.
 */
export async function extractWithModel(model: ExtractModel | undefined, req: ExtractRequest): Promise<{ data: unknown; model: string }> {
  if (!model?.llm.configured) throw noModelFailure();
  await loadJsonSchemaSupport();
  // An invalid schema is the test's mistake: say so before paying for a call.
  schemaViolations(req.schema, {});
  const prompt = [
    `Instruction: ${req.instruction}`,
    `JSON Schema of the answer:\n${JSON.stringify(req.schema)}`,
    `Page URL: ${req.page.url}`,
    `Page title: ${req.page.title ?? '(none)'}`,
    `Page content${req.page.snapshot.truncated ? ` (the first ${req.page.snapshot.text.length} of ${req.page.snapshot.chars} characters; the rest was cut)` : ''}:\n${req.page.snapshot.text}`,
  ].join('\n\n');
  let answer: { text: string; model: string };
  try {
    answer = await model.llm.complete({ type: 'extract_data' }, { system: SYSTEM, prompt, json: true, maxTokens: MAX_ANSWER_TOKENS, temperature: 0 }, model.context);
  } catch (err) {
    if (err instanceof LlmError) throw new StepFailure(err.reason === 'NO_MODEL' || err.reason === 'BUDGET_EXCEEDED' ? 'configuration' : 'network', `${err.reason}: ${err.message}`, { reason: err.reason });
    throw err;
  }
  const data = parseAnswer(answer.text);
  const problems = schemaViolations(req.schema, data);
  if (problems) throw new StepFailure('assertion', `the model's answer does not match the schema: ${problems.summary} (answer: ${preview(data, 300)})`, { errors: problems.errors, model: answer.model });
  return { data, model: answer.model };
}

/** The answer's JSON; a code fence around it is tolerated (some models add one despite being told). */
function parseAnswer(text: string): unknown {
  const fenced = /^\s*```(?:json)?\s*\n?([\s\S]*?)\n?```\s*$/i.exec(text);
  const body = (fenced ? fenced[1] : text).trim();
  try {
    return JSON.parse(body);
  } catch {
    throw new StepFailure('assertion', `the model's answer is not JSON: ${JSON.stringify(body.slice(0, 300))}${body.length > 300 ? '…' : ''}`);
  }
}
