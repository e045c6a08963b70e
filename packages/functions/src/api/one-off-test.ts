import { TestDefinition } from '@svc/core/contracts/steps';
import { validationFailed } from '@svc/core/errors';

/**
 * The one-off UI test of an act or extract call, validated. Given steps were checked with
 * the request body, but steps the grammar wrote from an instruction were not: one the
 * schema refuses (a malformed selector built from a name) is a 400 naming the request
 * field the step came from, never a ZodError 500.
 */
/** `fieldOfStep` gives the request field standing for step `index` (its issue's steps.N is replaced by it; '' when the step's own fields are the request's), or which of an instruction's steps it is. */
export function oneOffTest(input: { name: string; timeout_ms: number; steps: unknown[] }, fieldOfStep: (index: number) => string | { instructionStep: number }): TestDefinition {
  const parsed = TestDefinition.safeParse({ ...input, type: 'ui' });
  if (parsed.success) return parsed.data;
  throw validationFailed(parsed.error.issues.map((i) => {
    const [top, index, ...rest] = i.path;
    const field = top === 'steps' && typeof index === 'number' ? fieldOfStep(index) : 'steps';
    // An instruction's step is named by the instruction (and its number among the instruction's steps); a given step by its own field.
    if (typeof field !== 'string') return { path: 'instruction', message: `step ${field.instructionStep + 1} made from the instruction: ${i.path.slice(2).join('.')}: ${i.message}` };
    return { path: [...(field ? [field] : []), ...rest].join('.'), message: i.message };
  }));
}
