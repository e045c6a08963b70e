import { changedFilesFromDiff, type ChangedFile } from './diff.ts';

/** The parts of the code analyser's Surface the planner reads (structural, so either side can evolve). */
export interface PlanSurface {
  kind: string;
  method: string;
  path: string;
  file?: string;
  name?: string;
}

/** The parts of a discovered page the planner reads. */
export interface PlanPage {
  url: string;
  page_type: string;
  importance_score: number;
  risk_score: number;
  element_count?: number;
}

export interface PlanInput {
  surfaces?: PlanSurface[];
  pages?: PlanPage[];
  flows?: Array<{ name: string; flow_type: string; url?: string }>;
  /** A unified diff; its changed paths raise the risk of the surfaces and pages they touch. */
  diff?: string;
  changed_files?: string[];
}

export const priorities = ['CRITICAL', 'HIGH', 'MEDIUM', 'LOW'] as const;
export type Priority = (typeof priorities)[number];

export interface PlanItem {
  target: string;
  kind: 'surface' | 'page' | 'flow';
  priority: Priority;
  risk_score: number;
  reasons: string[];
  suggested_test: string;
}

export interface Plan {
  items: PlanItem[];
  changed_files: string[];
  summary: Record<Priority, number>;
}

const round = (n: number) => Math.round(Math.max(0, Math.min(1, n)) * 100) / 100;

export function priorityOf(score: number): Priority {
  if (score >= 0.8) return 'CRITICAL';
  if (score >= 0.6) return 'HIGH';
  if (score >= 0.4) return 'MEDIUM';
  return 'LOW';
}

const SENSITIVE = /(auth|login|logout|sign|password|session|token|payment|pay|checkout|billing|cart|order|admin|account|user)/i;
const tokensOf = (s: string) => new Set(s.toLowerCase().split(/[^a-z0-9]+/).filter((t) => t.length >= 3 && !['src', 'app', 'api', 'lib', 'index', 'page', 'route', 'routes', 'pages', 'components', 'tsx', 'jsx', 'html'].includes(t)));

/** Changed files that plausibly implement a target: the same file, or a shared meaningful path word. */
function touching(target: string, file: string | undefined, changed: ChangedFile[]): ChangedFile[] {
  const words = tokensOf(target);
  return changed.filter((c) => (file && (c.path === file || c.path.endsWith(`/${file}`) || file.endsWith(`/${c.path}`))) || [...tokensOf(c.path)].some((w) => words.has(w)));
}

/**
 * A prioritised test plan. Every item's risk score is a sum of named reasons (sensitive
 * area, writes data, changed in this diff, discovered risk, ...), so the score says why.
 */
export function buildPlan(input: PlanInput): Plan {
  const changed = [...(input.diff ? changedFilesFromDiff(input.diff) : []), ...(input.changed_files ?? []).map((path) => ({ path, added: 0, removed: 0, deleted: false }))];
  const items: PlanItem[] = [];
  for (const s of input.surfaces ?? []) {
    const reasons: string[] = [];
    let score = 0.2;
    const target = `${s.method} ${s.path}`;
    if (SENSITIVE.test(s.path) || SENSITIVE.test(s.name ?? '')) { score += 0.3; reasons.push('sensitive area (auth, payment, account or admin)'); }
    if (/^(POST|PUT|PATCH|DELETE|ANY)$/.test(s.method)) { score += 0.15; reasons.push(`${s.method} changes data`); }
    if (s.path.includes(':') || s.path.includes('{')) { score += 0.05; reasons.push('takes path parameters'); }
    const hits = touching(s.path + ' ' + (s.name ?? ''), s.file, changed);
    if (hits.length) { score += 0.35; reasons.push(`changed in this diff: ${hits.slice(0, 3).map((h) => h.path).join(', ')}`); }
    items.push({ target, kind: 'surface', priority: priorityOf(score), risk_score: round(score), reasons: reasons.length ? reasons : ['baseline coverage'], suggested_test: s.kind === 'page' || s.kind === 'client_route' ? `open ${s.path} and check it renders` : `call ${target} and check status and body` });
  }
  for (const p of input.pages ?? []) {
    const reasons: string[] = [`discovered ${p.page_type} page (risk ${p.risk_score}, importance ${p.importance_score})`];
    let score = 0.5 * p.risk_score + 0.4 * p.importance_score;
    const path = (() => { try { const u = new URL(p.url); return u.pathname + u.hash; } catch { return p.url; } })();
    if (SENSITIVE.test(path) || p.page_type === 'auth' || p.page_type === 'checkout') { score += 0.2; reasons.push('sensitive area (auth, payment, account or admin)'); }
    const hits = touching(path, undefined, changed);
    if (hits.length) { score += 0.3; reasons.push(`changed in this diff: ${hits.slice(0, 3).map((h) => h.path).join(', ')}`); }
    items.push({ target: p.url, kind: 'page', priority: priorityOf(score), risk_score: round(score), reasons, suggested_test: p.page_type === 'form' || p.page_type === 'auth' ? `fill and submit the form on ${path}` : `open ${path} and check its main content` });
  }
  for (const f of input.flows ?? []) {
    let score = f.flow_type === 'authentication' || f.flow_type === 'checkout' ? 0.75 : f.flow_type === 'crud' || f.flow_type === 'form' ? 0.55 : 0.35;
    const reasons = [`${f.flow_type} flow found by discovery`];
    const hits = touching(`${f.name} ${f.url ?? ''}`, undefined, changed);
    if (hits.length) { score += 0.25; reasons.push(`changed in this diff: ${hits.slice(0, 3).map((h) => h.path).join(', ')}`); }
    items.push({ target: f.name, kind: 'flow', priority: priorityOf(score), risk_score: round(score), reasons, suggested_test: `replay the "${f.name}" flow end to end` });
  }
  items.sort((a, b) => b.risk_score - a.risk_score || a.target.localeCompare(b.target));
  const summary = { CRITICAL: 0, HIGH: 0, MEDIUM: 0, LOW: 0 } as Record<Priority, number>;
  for (const i of items) summary[i.priority]++;
  return { items, changed_files: changed.map((c) => c.path), summary };
}

/** One target's risk with its reasons (POST /api/risk/score). */
export function riskScore(input: PlanInput & { target?: string }): { score: number; priority: Priority; reasons: string[]; items: PlanItem[] } {
  const plan = buildPlan(input);
  const items = input.target ? plan.items.filter((i) => i.target.includes(input.target!)) : plan.items;
  const top = items[0];
  if (!top) {
    const changedOnly = plan.changed_files.length;
    const score = round(Math.min(1, 0.1 + changedOnly * 0.05));
    return { score, priority: priorityOf(score), reasons: changedOnly ? [`${changedOnly} files changed, no known surface touched`] : ['nothing to score'], items: [] };
  }
  return { score: top.risk_score, priority: top.priority, reasons: top.reasons, items };
}
