import type { ExtractField, Locator } from '../../contracts/steps.ts';
import { fieldKey } from '../../execution/fingerprint-store.ts';

/**
 * What `POST /api/heal` heals when it names a step (`step_index`, and for an extract step
 * the `field`): the locator there, the key its fingerprint is stored under, and the path
 * in the test where a healed selector goes — `steps.1.selector`, `steps.2.assertion.selector`
 * or an extract field's `steps.3.fields.total.selector`. An extract step has no locator of
 * its own: each field reads its element by its own (docs/healing.md "What is healed").
 */
export interface HealTarget {
  step_index: number;
  /** The extract field, or null for a step's own locator. */
  field: string | null;
  /** Where the healed selector is written in the test. */
  path: string;
  /** The locator there, when the step has one (a goto has none). */
  selector?: Locator;
  /** The FingerprintStore key of its element: the step index, or `<index>.<field>`. */
  fingerprint_key: string;
  /** An extract step named without a field: the fields one of which should be named. */
  fields?: string[];
}

export type HealTargetIssue = { path: 'step_index' | 'field'; message: string };

type StepLike = { type: string; selector?: Locator; assertion?: { selector?: Locator }; fields?: Record<string, ExtractField>; instruction?: string };

export function healTarget(steps: readonly unknown[], stepIndex: number | undefined, field: string | undefined): HealTarget | HealTargetIssue | undefined {
  if (stepIndex === undefined) return field === undefined ? undefined : { path: 'field', message: 'needs step_index: the extract step whose field it is' };
  const step = steps[stepIndex] as StepLike | undefined;
  if (!step) return { path: 'step_index', message: `the test has ${steps.length} steps` };
  const at = `step ${stepIndex + 1}`;
  if (step.type === 'extract') {
    if (!step.fields) return field === undefined ? base(stepIndex) : { path: 'field', message: `${at} extracts with a model (instruction): it has no fields` };
    if (field === undefined) return { ...base(stepIndex), fields: Object.keys(step.fields) }; // the caller names the selector itself, or is told to name a field
    const f = step.fields[field];
    if (!f) return { path: 'field', message: `${at} has no field ${JSON.stringify(field)} (its fields: ${Object.keys(step.fields).join(', ')})` };
    // A list is not one element: a fingerprint cannot say which list was meant (as in a run).
    if (f.all) return { path: 'field', message: `field ${JSON.stringify(field)} of ${at} is read with all: true (a list), which is not healed` };
    return { step_index: stepIndex, field, path: `steps.${stepIndex}.fields.${field}.selector`, selector: f.selector, fingerprint_key: fieldKey(stepIndex, field) };
  }
  if (field !== undefined) return { path: 'field', message: `${at} is a ${step.type} step, not an extract step: only an extract step has fields` };
  if (step.type === 'assert') return { step_index: stepIndex, field: null, path: `steps.${stepIndex}.assertion.selector`, ...(step.assertion?.selector !== undefined && { selector: step.assertion.selector }), fingerprint_key: String(stepIndex) };
  return { ...base(stepIndex), ...(step.selector !== undefined && { selector: step.selector }) };
}

const base = (i: number): HealTarget => ({ step_index: i, field: null, path: `steps.${i}.selector`, fingerprint_key: String(i) });

export const isTargetIssue = (t: HealTarget | HealTargetIssue | undefined): t is HealTargetIssue => t !== undefined && 'message' in t;
