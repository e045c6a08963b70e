import type { PageSnapshot } from './types.ts';

const round = (n: number) => Math.round(Math.max(0, Math.min(1, n)) * 100) / 100;

const TYPE_IMPORTANCE: Record<string, number> = { auth: 0.9, checkout: 0.95, form: 0.75, dashboard: 0.7, search: 0.65, list: 0.6, landing: 0.6, settings: 0.55, detail: 0.45, content: 0.35, api: 0.4, error: 0.2 };
const TYPE_RISK: Record<string, number> = { checkout: 0.8, auth: 0.7, form: 0.6, settings: 0.5, list: 0.45, search: 0.45, dashboard: 0.4, detail: 0.3, api: 0.35, landing: 0.25, content: 0.2, error: 0.6 };

/** How important a page is to test: its type, how close to the start it is, how many pages link to it. */
export function pageImportance(pageType: string, depth: number, inbound: number): number {
  return round((TYPE_IMPORTANCE[pageType] ?? 0.4) + Math.min(inbound, 10) * 0.02 - depth * 0.05);
}

/** How likely a page is to break: its type, input surface, and anything that already went wrong on it. */
export function pageRisk(pageType: string, p: Pick<PageSnapshot, 'forms' | 'elements' | 'partial' | 'status'>): number {
  const fields = p.forms.reduce((n, f) => n + f.fields.length, 0);
  const unstable = p.elements.filter((e) => e.strategy === 'css' || e.strategy === 'xpath' || !e.unique).length;
  let risk = (TYPE_RISK[pageType] ?? 0.3) + Math.min(fields, 10) * 0.02 + Math.min(unstable, 10) * 0.01;
  if (p.partial) risk += 0.2;
  if ((p.status ?? 200) >= 500) risk += 0.2;
  return round(risk);
}
