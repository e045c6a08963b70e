import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createStore } from '@svc/core/store/index';
import { systemClock } from '@svc/core/ports/clock';
import { silentLogger, type Logger } from '@svc/core/ports/logger';
import type { SuiteTest, ProgressEvent } from '@svc/core/execution/run-suite';
import type { HttpExchange, RunSummary, SqlDriver, TestExecutionResult, UiDriver } from '@svc/core/execution/types';
import type { TestResult } from '@svc/core/contracts/run-state';
import type { RunArtifacts } from '@svc/core/run-graph/deps';
import type { Healer } from '@svc/core/run-graph/healer';
import type { RunEvent } from '@svc/core/run-graph/events';
import { runSummaryOf } from '@svc/core/run-graph/run-summary';
import { FileTable } from '../local/file-table.ts';
import { createExecutionEnvs } from './execution-env.ts';
import { createRunManager } from './run-manager.ts';

export interface GraphSuiteOptions {
  name: string;
  tests: SuiteTest[];
  baseUrl: string;
  /** MaxConcurrency of the Map state. */
  workers: number;
  browser?: () => Promise<UiDriver>;
  sql?: SqlDriver;
  http?: HttpExchange;
  artifacts: RunArtifacts;
  environment: Record<string, string>;
  secrets: Record<string, string>;
  healer?: Healer;
  signal?: AbortSignal;
  onProgress?: (event: ProgressEvent) => void;
  onEvent?: (event: RunEvent) => void;
  logger?: Logger;
}

/**
 * `svc run` through the run graph: the test files become a project's tests in an
 * in-memory store, and the same graph (the ASL definition on the local interpreter, the
 * same nodes, checkpoints and limits) runs them; the result is the RunSummary the
 * reporters take, in the order the tests were given, with the files' own test ids.
 */
export async function runSuiteThroughGraph(o: GraphSuiteOptions): Promise<RunSummary> {
  const table = new FileTable();
  const store = createStore(table, systemClock);
  const scratch = await mkdtemp(join(tmpdir(), 'svc-run-'));
  const orgId = crypto.randomUUID();
  const byStored = new Map<string, SuiteTest>();
  const envs = createExecutionEnvs({ store, artifactsDir: scratch, artifacts: () => o.artifacts, http: o.http, sql: o.sql, browser: o.browser, environment: o.environment, secrets: o.secrets });
  const graph = createRunManager({
    store,
    table,
    clock: systemClock,
    logger: o.logger ?? silentLogger,
    envs,
    healer: o.healer,
    testExtras: (id) => {
      const t = byStored.get(id);
      return t && { timeout_ms: t.definition.timeout_ms, parameters: t.definition.parameters };
    },
  });
  try {
    const project = await store.projects.create(orgId, { name: o.name.slice(0, 255) || 'svc run', app_url: o.baseUrl });
    const ids: string[] = [];
    for (const t of o.tests) {
      const d = t.definition;
      const stored = await store.tests.create(orgId, { project_id: project.id, name: d.name, description: d.description ?? null, type: d.type, steps: d.steps, assertions: d.assertions, priority: d.priority, tags: d.tags });
      byStored.set(stored.id, t);
      ids.push(stored.id);
    }
    const { run, threadId } = await graph.start(orgId, null, { project_id: project.id, test_ids: ids, trigger: 'ci', healing_enabled: !!o.healer, max_concurrency: Math.max(1, Math.min(32, o.workers)) } as never);
    const onAbort = () => void graph.cancel(orgId, threadId, null).catch(() => {});
    o.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      await follow(graph.events, threadId, o, byStored);
    } finally {
      o.signal?.removeEventListener('abort', onAbort);
    }
    const finished = (await store.testRuns.get(orgId, run.id))!;
    const summary = await runSummaryOf(store, orgId, finished);
    const order = new Map(o.tests.map((t, i) => [t.id, i]));
    const results = summary.results
      .map((r) => {
        const t = byStored.get(r.test_id)!;
        return { ...r, test_id: t.id, name: t.definition.name, type: t.definition.type, metadata: { ...r.metadata, priority: t.definition.priority, tags: t.definition.tags } };
      })
      .sort((a, b) => order.get(a.test_id)! - order.get(b.test_id)!);
    return { ...summary, name: o.name, base_url: o.baseUrl, workers: o.workers, results };
  } finally {
    await graph.close();
    await table.close?.();
    await rm(scratch, { recursive: true, force: true });
  }
}

/** Reads the run's events until it completes, turning test starts and ends into progress. */
async function follow(events: ReturnType<typeof createRunManager>['events'], threadId: string, o: GraphSuiteOptions, byStored: Map<string, SuiteTest>) {
  let after = 0;
  let done = 0;
  let ended: string | undefined;
  let wake: (() => void) | undefined;
  const unwatch = events.watch(threadId, () => wake?.());
  try {
    for (;;) {
      for (const e of await events.after(threadId, after, 200)) {
        after = e.id;
        o.onEvent?.(e);
        const t = e.data.test_id ? byStored.get(String(e.data.test_id)) : undefined;
        if (e.type === 'node_start' && e.data.node === 'execute_test' && t) o.onProgress?.({ type: 'test_start', test_id: t.id, name: t.definition.name, worker: 0 });
        if (e.type === 'node_end' && e.data.node === 'execute_test') ended = String(e.data.test_id);
        if (e.type === 'state_update' && ended) {
          // node_end is followed by the state it produced: the test's result is in it.
          const r = (e.data.state as { test_results: TestResult[] }).test_results.find((x) => x.test_id === ended);
          const test = byStored.get(ended);
          ended = undefined;
          if (r && test) o.onProgress?.({ type: 'test_end', result: progressResult(test, r), done: ++done, total: byStored.size });
        }
        if (e.type === 'complete' || e.type === 'error') return;
      }
      await new Promise<void>((r) => {
        wake = r;
        setTimeout(r, 500);
      });
    }
  } finally {
    unwatch();
  }
}

function progressResult(t: SuiteTest, r: TestResult): TestExecutionResult {
  const at = new Date().toISOString();
  return {
    test_id: t.id, name: t.definition.name, type: t.definition.type, status: r.status.toLowerCase() as TestExecutionResult['status'], started_at: at, finished_at: at,
    duration_ms: r.duration_ms, steps: [], assertions_passed: r.assertions_passed, assertions_failed: r.assertions_failed, ...(r.error_message ? { error_message: r.error_message } : {}),
    screenshots: r.screenshots, console_errors: [], failed_requests: [], fingerprints: {}, metadata: {},
  };
}
