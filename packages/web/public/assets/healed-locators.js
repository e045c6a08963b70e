import { element } from './dom.js';

/**
 * The "Healed" block under a healed test's row in the run view: each locator the run healed,
 * step by step — the locator the test has, the one that worked instead, and how sure the
 * healer was — read from the result's steps (metadata.steps[].healed, and an extract step's
 * healed_fields) and its trailing assertions (metadata.assertion_results[].healed). It is
 * what "Keep the fix" would write into the test, shown before anyone decides to keep it.
 *
 * @typedef {{ original: string, healed: string, confidence: number, field?: string }} Heal
 * @typedef {{ index: number, description?: string, healed?: Heal, healed_fields?: Heal[] }} StepLike
 * @typedef {{ place: string, heal: Heal }} Placed
 */

/** @param {unknown} heal @returns {heal is Heal} */
const isHeal = (heal) => !!heal && typeof heal === 'object' && typeof (/** @type {Heal} */ (heal).original) === 'string' && typeof (/** @type {Heal} */ (heal).healed) === 'string';

/** @param {number} confidence 0–1 */
const percent = (confidence) => `${Math.round(confidence * 100)}%`;

/**
 * The block for a result's metadata, or undefined when no step or assertion of it was healed.
 * @param {{ steps?: unknown, assertion_results?: unknown }} metadata
 */
export function healedBlock(metadata) {
  const steps = /** @type {StepLike[]} */ (Array.isArray(metadata.steps) ? metadata.steps : []);
  const assertions = /** @type {StepLike[]} */ (Array.isArray(metadata.assertion_results) ? metadata.assertion_results : []);
  const described = (/** @type {StepLike} */ s) => (s.description ? ` (${s.description})` : '');
  /** @type {Placed[]} */
  const heals = [
    ...steps.flatMap((s) => [s?.healed, ...(Array.isArray(s?.healed_fields) ? s.healed_fields : [])].filter(isHeal).map((h) => ({ place: `Step ${s.index + 1}${h.field ? ` · field ${h.field}` : ''}${described(s)}: `, heal: h }))),
    // A trailing assertion's locator heals like a step's (its index counts the assertions, from 0).
    ...assertions.flatMap((a) => (isHeal(a?.healed) ? [{ place: `Assertion ${a.index + 1}${described(a)}: `, heal: a.healed }] : [])),
  ];
  if (!heals.length) return undefined;
  const block = element('div', { className: 'test-result-healed', testid: 'test-result-healed' });
  block.append(element('p', { className: 'test-result-healed-title', text: heals.length === 1 ? 'Healed locator' : `Healed locators (${heals.length})` }));
  const list = element('ul', { className: 'healed-list' });
  for (const { place, heal } of heals) {
    const row = element('li', { testid: 'healed-locator' });
    row.append(
      element('span', { className: 'muted', text: place }),
      element('code', { className: 'healed-before', testid: 'healed-before', text: heal.original }),
      element('span', { text: ' → ' }),
      element('code', { className: 'healed-after', testid: 'healed-after', text: heal.healed }),
      element('span', { className: 'muted', testid: 'healed-confidence', text: typeof heal.confidence === 'number' ? ` · ${percent(heal.confidence)} sure` : '' }),
    );
    list.append(row);
  }
  block.append(list);
  return block;
}
