import type { CostBreakdownResponse } from '../contracts/insights.ts';
import type { Store } from '../store/index.ts';

/** Usage rows read at most for one breakdown; older ones are left out and `truncated` says so. */
export const MAX_USAGE_ROWS = 50_000;

type Spend = { requests: number; input_tokens: number; output_tokens: number; cost_usd: number };
const zero = (): Spend => ({ requests: 0, input_tokens: 0, output_tokens: 0, cost_usd: 0 });
const money = (n: number) => Math.round(n * 1e6) / 1e6;
const finish = (s: Spend): Spend => ({ ...s, cost_usd: money(s.cost_usd) });

/**
 * Model spend of an organization (or of one project's runs) over the last `days` UTC
 * days, from the ai_usage rows every model call writes: by day, model, task and run. A
 * project's share is the calls made for its runs; calls made outside a run (generation,
 * chat, the healing endpoints) belong to no project and are counted only for the whole
 * organization.
 */
export async function costBreakdown(store: Store, orgId: string, opts: { projectId?: string; days: number; now: Date }): Promise<CostBreakdownResponse> {
  const to = opts.now.toISOString().slice(0, 10);
  const fromDate = new Date(Date.parse(`${to}T00:00:00.000Z`) - (opts.days - 1) * 86_400_000);
  const from = fromDate.toISOString();

  const total = zero();
  const outside = zero();
  const byDay = new Map<string, Spend>();
  const byModel = new Map<string, Spend>();
  const byTask = new Map<string, Spend>();
  const byRun = new Map<string, Spend>();
  const runProject = new Map<string, string | undefined>();
  type Row = { input_tokens: number; output_tokens: number; cost_usd: number };
  const bump = (s: Spend, row: Row) => {
    s.requests++;
    s.input_tokens += row.input_tokens;
    s.output_tokens += row.output_tokens;
    s.cost_usd += row.cost_usd;
  };
  const add = (map: Map<string, Spend>, key: string, row: Row) => {
    const s = map.get(key) ?? zero();
    map.set(key, s);
    bump(s, row);
  };

  let read = 0;
  let truncated = false;
  let cursor: string | undefined;
  scan: do {
    const page = await store.aiUsage.list(orgId, 1000, cursor);
    for (const row of page.items) {
      if (row.created_at < from) break scan; // newest first: everything after is older
      if (++read > MAX_USAGE_ROWS) {
        truncated = true;
        break scan;
      }
      if (opts.projectId) {
        if (!row.run_id) continue;
        if (!runProject.has(row.run_id)) runProject.set(row.run_id, (await store.testRuns.get(orgId, row.run_id))?.project_id);
        if (runProject.get(row.run_id) !== opts.projectId) continue;
      }
      bump(total, row);
      add(byDay, row.created_at.slice(0, 10), row);
      add(byModel, row.model, row);
      add(byTask, row.task_type, row);
      if (row.run_id) add(byRun, row.run_id, row);
      else bump(outside, row);
    }
    cursor = page.next_cursor ?? undefined;
  } while (cursor);

  const costliest = <K extends string>(map: Map<string, Spend>, name: K) =>
    [...map].map(([key, s]) => ({ [name]: key, ...finish(s) }) as { [P in K]: string } & Spend).sort((a, b) => b.cost_usd - a.cost_usd || b.requests - a.requests);
  return {
    organization_id: orgId,
    project_id: opts.projectId ?? null,
    from: from.slice(0, 10),
    to,
    total: finish(total),
    by_day: [...byDay].sort(([a], [b]) => a.localeCompare(b)).map(([date, s]) => ({ date, ...finish(s) })),
    by_model: costliest(byModel, 'model'),
    by_task: costliest(byTask, 'task_type'),
    by_run: costliest(byRun, 'run_id').slice(0, 20),
    outside_runs: finish(outside),
    truncated,
  };
}
