import { element } from './dom.js';

/**
 * The "Extracted" block under a test's row in the run view: what each extract step of the
 * test read, from the result's steps (metadata.steps[].extracted — the run's one record of
 * it, already masked: secret values and fields named like credentials are ***). Compact:
 * one line per field, each value cut at VALUE_CHARS and at most MAX_FIELDS fields per step;
 * the JSON report has all of it.
 *
 * @typedef {{ index: number, type: string, status: string, save_as?: string, extracted?: unknown }} StepLike
 */

/** Characters of one value shown (a list or object as JSON); the rest is "…". */
export const VALUE_CHARS = 200;
/** Fields shown per step; more are counted. */
export const MAX_FIELDS = 20;

/** @param {unknown} value */
function shown(value) {
  const text = typeof value === 'string' ? value : JSON.stringify(value) ?? String(value);
  return text.length > VALUE_CHARS ? `${text.slice(0, VALUE_CHARS)}…` : text;
}

/**
 * The block for a result's metadata, or undefined when no extract step of it read anything.
 * @param {{ steps?: unknown }} metadata
 */
export function extractedBlock(metadata) {
  const steps = /** @type {StepLike[]} */ (Array.isArray(metadata.steps) ? metadata.steps : []).filter((s) => s && s.type === 'extract' && s.extracted !== undefined);
  if (!steps.length) return undefined;
  const block = element('div', { className: 'test-result-extracted', testid: 'test-result-extracted' });
  block.append(element('p', { className: 'test-result-extracted-title', text: 'Extracted' }));
  for (const s of steps) {
    const part = element('div', { className: 'extracted-step', testid: 'extracted-step' });
    part.append(element('p', { className: 'muted extracted-step-name', testid: 'extracted-step-name', text: `Step ${s.index + 1}${s.save_as ? ` · {{${s.save_as}}}` : ''}` }));
    const value = s.extracted;
    if (value && typeof value === 'object' && !Array.isArray(value)) {
      const entries = Object.entries(value);
      const list = element('dl', { className: 'extracted-fields' });
      for (const [name, v] of entries.slice(0, MAX_FIELDS)) {
        const row = element('div', { testid: 'extracted-field' });
        row.append(element('dt', { text: name }), element('dd', { text: shown(v) }));
        list.append(row);
      }
      part.append(list);
      if (entries.length > MAX_FIELDS) part.append(element('p', { className: 'muted', testid: 'extracted-more', text: `… and ${entries.length - MAX_FIELDS} more fields (the JSON report has them all)` }));
    } else {
      part.append(element('p', { className: 'extracted-value', testid: 'extracted-value', text: shown(value) }));
    }
    block.append(part);
  }
  return block;
}
