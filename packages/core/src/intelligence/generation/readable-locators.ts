import type { Fingerprint } from '../../contracts/fingerprint.ts';
import type { Locator, Step } from '../../contracts/steps.ts';
import { replacementSelector } from '../../healing/selector.ts';

/**
 * The grammar writes a sentence's element as a union of its likely readings
 * (`internal:role=button[name=/^\s*Save(?!\w)/i] >> internal:or="internal:role=link…"`):
 * right for finding it, hard to read and edit in a saved test. After a run in which every
 * step passed, each such union is replaced by the readable locator of the element it
 * matched — its test id, role and accessible name, label, id or text, from the step's
 * fingerprint (the healer's preference order). The caller keeps the readable steps only
 * when a second run with them passes too.
 *
 * A locator the caller wrote (anything but a union), a step without a fingerprint, a
 * selector with a {{variable}} and an assertion about several elements (count) are kept.
 */
export function readableSteps(steps: readonly Step[], fingerprints: Readonly<Record<string, Fingerprint>>): { steps: Step[]; replaced: number } {
  let replaced = 0;
  const out = steps.map((step, index) => {
    const fp = fingerprints[String(index)];
    if (!fp) return step;
    if ('selector' in step && isUnion(step.selector)) {
      const readable = readableLocator(fp);
      if (!readable) return step;
      replaced++;
      return { ...step, selector: readable } as Step;
    }
    if (step.type === 'assert' && step.assertion.type !== 'count' && 'selector' in step.assertion && isUnion(step.assertion.selector)) {
      const readable = readableLocator(fp);
      if (!readable) return step;
      replaced++;
      return { ...step, assertion: { ...step.assertion, selector: readable } } as Step;
    }
    return step;
  });
  return { steps: out, replaced };
}

/** A union the grammar wrote (and not one with a {{variable}}, whose element may differ per run). */
function isUnion(locator: unknown): locator is string {
  return typeof locator === 'string' && locator.includes(' >> internal:or=') && !locator.includes('{{');
}

/** Readable strategies only: a CSS class chain or an XPath is no easier to read than the union. */
const READABLE = new Set(['testId', 'role', 'label', 'id', 'text']);

function readableLocator(fp: Fingerprint): Locator | undefined {
  const proposal = replacementSelector(fp, [fp]);
  return proposal?.alternatives.find((a) => READABLE.has(a.strategy))?.locator;
}
