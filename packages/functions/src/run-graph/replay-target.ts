import type { ExtractField, Locator, UiAssertion, UiStep } from '@svc/core/contracts/steps';
import type { TestSpec } from '@svc/core/contracts/test-spec';
import { describeLocator } from '@svc/core/execution/describe-step';

/**
 * Where in a test the self_heal replay's patch goes: the item at the runner's index (a
 * step, an inline assertion, a trailing assertion) — or, for an extract step, one of its
 * fields, which each read their own element by their own locator.
 */

/** The step (or inline/trailing assertion) at the runner's index: steps first, then the trailing assertions. */
export function itemAt(test: TestSpec, index: number): UiStep | UiAssertion | undefined {
  const step = index < test.steps.length ? test.steps[index] : undefined;
  if (step) return (step.type === 'assert' ? step.assertion : step) as UiStep | UiAssertion;
  return test.assertions[index - test.steps.length] as UiAssertion | undefined;
}

/** An extract step's fields read by a selector, or undefined when the step at `index` is not an extract step by fields. */
export function extractFieldsAt(test: TestSpec, index: number): Record<string, ExtractField> | undefined {
  const step = index < test.steps.length ? (test.steps[index] as { type: string; fields?: Record<string, ExtractField> }) : undefined;
  return step?.type === 'extract' ? step.fields : undefined;
}

/**
 * The fields the healer could patch: one element each. A field read with `all: true` is a
 * list, which one element's fingerprint cannot describe (as in-step healing, step-healer.ts).
 */
export function healableFields(fields: Record<string, ExtractField>): Array<[string, ExtractField]> {
  return Object.entries(fields).filter(([, f]) => !f.all);
}

/** "button: #login-submit, heading: h1" — an extract step's fields as a reason names them. */
export function describeFields(fields: Array<[string, ExtractField]>): string {
  return fields.map(([name, f]) => `${name}: ${describeLocator(f.selector)}`).join(', ');
}

/**
 * The test with only that item's selector replaced — or, with `field`, only that extract
 * field's (`steps[index].fields[field].selector`; its attribute and the other fields kept).
 */
export function patched(test: TestSpec, index: number, locator: Locator, field?: string): TestSpec {
  const copy = structuredClone(test);
  if (index < copy.steps.length) {
    const step = copy.steps[index] as { type: string; selector?: unknown; assertion?: { selector?: unknown }; fields?: Record<string, { selector: unknown }> };
    if (field !== undefined) {
      const target = step.fields?.[field];
      if (!target) throw new Error(`step ${index + 1} has no extract field ${JSON.stringify(field)}`);
      target.selector = locator;
    } else if (step.type === 'assert' && step.assertion) step.assertion.selector = locator;
    else step.selector = locator;
  } else {
    (copy.assertions[index - copy.steps.length] as { selector?: unknown }).selector = locator;
  }
  return copy;
}
