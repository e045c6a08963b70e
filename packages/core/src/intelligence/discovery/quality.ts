import type { PageSnapshot } from './types.ts';

export interface QualityReport {
  /** 0..100: share of stable selectors, pages that loaded, labelled fields, titled pages. */
  score: number;
  insights: Record<string, unknown>;
}

/** A quality score for the discovered app and the findings behind it. */
export function assessQuality(pages: readonly PageSnapshot[], skipped: ReadonlyArray<{ url: string; reason: string }>, flowsCount: number): QualityReport {
  const elements = pages.flatMap((p) => p.elements);
  const stable = elements.filter((e) => e.unique && ['testId', 'role', 'label', 'id'].includes(e.strategy)).length;
  const fields = pages.flatMap((p) => p.forms.flatMap((f) => f.fields));
  const labelled = fields.filter((f) => f.label).length;
  const loaded = pages.filter((p) => !p.partial && (p.status ?? 200) < 400).length;
  const titled = pages.filter((p) => p.title.trim()).length;
  const ratio = (a: number, b: number) => (b === 0 ? 1 : a / b);
  const parts = { stable_selectors: ratio(stable, elements.length), labelled_fields: ratio(labelled, fields.length), pages_loaded: ratio(loaded, pages.length), titled_pages: ratio(titled, pages.length) };
  const score = Math.round((parts.stable_selectors * 0.35 + parts.labelled_fields * 0.2 + parts.pages_loaded * 0.35 + parts.titled_pages * 0.1) * 100);
  const findings: string[] = [];
  if (parts.stable_selectors < 0.7) findings.push(`${elements.length - stable} of ${elements.length} elements have no stable selector (add data-testid or accessible names)`);
  if (fields.length && parts.labelled_fields < 1) findings.push(`${fields.length - labelled} form fields have no label`);
  const partial = pages.filter((p) => p.partial);
  if (partial.length) findings.push(`${partial.length} pages did not finish loading`);
  const errors = pages.filter((p) => (p.status ?? 200) >= 400);
  if (errors.length) findings.push(`${errors.length} pages answered an HTTP error`);
  return {
    score,
    insights: {
      findings,
      metrics: Object.fromEntries(Object.entries(parts).map(([k, v]) => [k, Math.round(v * 100) / 100])),
      partial_pages: partial.map((p) => ({ url: p.url, reason: p.partial })),
      error_pages: errors.map((p) => ({ url: p.url, status: p.status })),
      skipped: skipped.slice(0, 200),
      skipped_count: skipped.length,
      risky_pages: [...pages].filter((p) => p.forms.length).map((p) => p.url).slice(0, 20),
      flows: flowsCount,
    },
  };
}
