import type { TimelineResponse } from '../contracts/insights.ts';
import type { RunHistory } from './history.ts';

const round = (n: number) => Math.round(n * 1000) / 1000;
const rate = (passed: number, failed: number) => (passed + failed ? round(passed / (passed + failed)) : null);

function median(values: number[]): number | null {
  if (!values.length) return null;
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : Math.round((s[mid - 1] + s[mid]) / 2);
}

/** The window's runs, oldest first, with their counts, verdicts and durations, and the same by UTC day. */
export function executionTimeline(projectId: string, history: RunHistory): TimelineResponse {
  const runs = history.runs.map(({ run, executions }) => {
    const count = (s: string) => executions.filter((e) => e.status === s).length;
    const healed = count('healed');
    const passed = count('passed') + healed;
    const failed = count('failed');
    // Quarantined failures are shown, but judged as the run's verdict judges them (commit
    // statuses, notifications): not failing it. A run that stopped on an error failed whatever its tests did.
    const quarantinedFailed = executions.filter((e) => e.status === 'failed' && e.quarantined !== undefined).length;
    const duration = run.started_at && run.completed_at ? Date.parse(run.completed_at) - Date.parse(run.started_at) : null;
    return {
      run_id: run.id,
      status: run.status,
      trigger: run.trigger,
      created_at: run.created_at,
      started_at: run.started_at,
      completed_at: run.completed_at,
      duration_ms: duration !== null && duration >= 0 ? duration : null,
      executed: executions.length,
      passed,
      failed,
      quarantined_failed: quarantinedFailed,
      failing: run.status === 'failed' || failed > quarantinedFailed,
      healed,
      skipped: count('skipped'),
      pass_rate: rate(passed, failed),
    };
  });

  const days = new Map<string, { runs: typeof runs }>();
  for (const r of runs) {
    const date = r.created_at.slice(0, 10);
    days.set(date, { runs: [...(days.get(date)?.runs ?? []), r] });
  }
  return {
    project_id: projectId,
    window: history.window,
    runs,
    days: [...days].map(([date, d]) => {
      const passed = d.runs.reduce((n, r) => n + r.passed, 0);
      const failed = d.runs.reduce((n, r) => n + r.failed, 0);
      return {
        date,
        runs: d.runs.length,
        executed: d.runs.reduce((n, r) => n + r.executed, 0),
        passed,
        failed,
        pass_rate: rate(passed, failed),
        median_run_ms: median(d.runs.flatMap((r) => (r.duration_ms === null ? [] : [r.duration_ms]))),
      };
    }),
  };
}
