import { Locator } from '../contracts/steps.ts';
import { describeLocator } from '../execution/describe-step.ts';

/**
 * One locator a run healed: where (a step, or an assertion — indices after the steps
 * count the assertions; an extract step's field), what it was, and what replaced it.
 */
export interface RunHeal {
  index: number;
  field?: string;
  /** The broken locator as the run described it (describeLocator). */
  original: string;
  healed_locator: unknown;
}

export type HealedDefinition =
  | { ok: true; steps: Array<Record<string, unknown>>; assertions: Array<Record<string, unknown>>; changes: Array<{ path: string; from: string; to: string }> }
  | { ok: false; reason: string };

/**
 * The test with a run's heals written in (POST /api/tests/{id}/apply-heal), each at its
 * place. Refused, changing nothing: a test with `use` steps (its indices count the flows'
 * steps, and a fix belongs in the flow), a heal whose place the test no longer has or
 * whose locator there is no longer the one that broke (the test changed since the run:
 * writing the heal would undo that change), a healed locator that is not one, and a run
 * that healed nothing.
 */
export function healedDefinition(test: { steps: ReadonlyArray<Record<string, unknown>>; assertions: ReadonlyArray<Record<string, unknown>> }, heals: readonly RunHeal[]): HealedDefinition {
  if (test.steps.some((s) => s.type === 'use')) return { ok: false, reason: 'the test uses flows: a heal of a flow\'s step belongs in the flow, and is not written into the test' };
  if (!heals.length) return { ok: false, reason: 'the run healed nothing in this test' };
  const steps = structuredClone([...test.steps]) as Array<Record<string, unknown>>;
  const assertions = structuredClone([...test.assertions]) as Array<Record<string, unknown>>;
  const changes: Array<{ path: string; from: string; to: string }> = [];
  for (const heal of heals) {
    const onStep = heal.index < steps.length;
    const item = onStep ? steps[heal.index] : assertions[heal.index - steps.length];
    const path = onStep ? `steps.${heal.index}` : `assertions.${heal.index - steps.length}`;
    const holder = heal.field === undefined ? item : (item?.fields as Record<string, Record<string, unknown>> | undefined)?.[heal.field];
    const where = heal.field === undefined ? path : `${path}.fields.${heal.field}`;
    if (!holder || holder.selector === undefined) return { ok: false, reason: `the run healed ${where}.selector, which the test no longer has: it changed since the run` };
    const now = show(holder.selector);
    const locator = Locator.safeParse(heal.healed_locator);
    // Applied before (twice from one run, or by hand): say so rather than "changed".
    if (locator.success && now === describeLocator(locator.data) && now !== heal.original) return { ok: false, reason: `${where}.selector is already ${now}: this run's heal of it is in the test (applied before)` };
    if (now !== heal.original) return { ok: false, reason: `${where}.selector is ${now} now, not ${heal.original} as in the run: the test changed since the run` };
    if (!locator.success) return { ok: false, reason: `the heal of ${where}.selector has no usable locator` };
    holder.selector = locator.data;
    changes.push({ path: `${where}.selector`, from: now, to: describeLocator(locator.data) });
  }
  return { ok: true, steps, assertions, changes };
}

function show(locator: unknown): string {
  const parsed = Locator.safeParse(locator);
  return parsed.success ? describeLocator(parsed.data) : JSON.stringify(locator ?? null);
}

/**
 * The heals of every case of a run, one per place. A parameterised test runs once per
 * parameter set, and each case may heal the same locator: the same heal is written once,
 * and two cases that healed one place to different locators are refused (which one is
 * right is for a person to say).
 */
export function mergeCaseHeals(cases: ReadonlyArray<{ label: string; heals: readonly RunHeal[] }>): { ok: true; heals: RunHeal[] } | { ok: false; reason: string } {
  const byPlace = new Map<string, { heal: RunHeal; label: string }>();
  for (const { label, heals } of cases) {
    for (const heal of heals) {
      const place = `${heal.index}\u0000${heal.field ?? ''}`;
      const seen = byPlace.get(place);
      if (!seen) {
        byPlace.set(place, { heal, label });
        continue;
      }
      if (seen.heal.original !== heal.original || JSON.stringify(seen.heal.healed_locator) !== JSON.stringify(heal.healed_locator)) {
        return { ok: false, reason: `the cases healed ${heal.original} differently: ${show(seen.heal.healed_locator)} in ${seen.label}, ${show(heal.healed_locator)} in ${label}; fix the test by hand` };
      }
    }
  }
  return { ok: true, heals: [...byPlace.values()].map((v) => v.heal) };
}
