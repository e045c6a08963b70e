import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createStore, type Store } from '@svc/core/store/index';
import { systemClock } from '@svc/core/ports/clock';
import { silentLogger, type Logger } from '@svc/core/ports/logger';
import { uuidv7 } from '@svc/core/ids';
import type { SuiteTest, ProgressEvent } from '@svc/core/execution/run-suite';
import type { HttpExchange, RunSummary, SqlDriver, TestExecutionResult, UiDriver } from '@svc/core/execution/types';
import type { FingerprintStore } from '@svc/core/execution/fingerprint-store';
import type { BaselineMode, BaselineStore } from '@svc/core/visual/baseline-store';
import type { StepHealer } from '@svc/core/execution/step-healer';
import type { TestResult } from '@svc/core/contracts/run-state';
import type { RunArtifacts } from '@svc/core/run-graph/deps';
import type { Healer } from '@svc/core/run-graph/healer';
import type { RunEvent } from '@svc/core/run-graph/events';
import { executionResultOf } from '@svc/core/run-graph/run-summary';
import { finalStatuses, resultOf, type RunGraphState } from '@svc/core/run-graph/state';
import { routeAfterExecute } from '@svc/core/run-graph/execute-test';
import { FileTable } from '../local/file-table.ts';
import { createExecutionEnvs } from './execution-env.ts';
import { createRunManager, type RunManager } from './run-manager.ts';
import { runTotals } from '@svc/core/execution/totals';
import { caseId, caseName, parameterCases, splitCaseId } from '@svc/core/contracts/parameter-sets';
import type { ExtractModel } from '@svc/core/execution/extract/ask-model';
import type { InvalidTest } from '../execution/load-tests.ts';
import { inFileOrder } from './invalid-tests.ts';
import { fileSafe } from '@svc/core/file-safe';

/** What a run needs from the machine it runs on (given again when a run is resumed). */
export interface GraphSuiteRuntime {
  browser?: () => Promise<UiDriver>;
  sql?: SqlDriver;
  http?: HttpExchange;
  artifacts: RunArtifacts;
  environment: Record<string, string>;
  secrets: Record<string, string>;
  /** The self_heal node's healer. Absent: failures are not routed to self_heal (the in-step healer is svc run's). */
  healer?: Healer;
  /** In-step locator healing (svc run's StepHealer: --no-heal, --heal-threshold). */
  stepHealer?: StepHealer;
  /** Fingerprints keyed by the files' test ids (FileFingerprintStore in --state-dir). */
  fingerprints?: FingerprintStore;
  traceOnFailure?: boolean;
  /** The model extract steps with an instruction ask (SVC_LLM_*); absent → they fail with NO_MODEL. */
  extractModel?: ExtractModel;
  /** Visual baselines keyed by the files' test ids (FileBaselineStore, --baselines) and what the run may write. */
  baselines?: BaselineStore;
  baselineMode?: BaselineMode;
  /** Checkpoints go to <stateDir>/runs/<thread_id>/ so an interrupted run can be resumed; absent: memory only. */
  stateDir?: string;
  /** Aborting stops the run where it is, resumable (checkpoints are kept). */
  signal?: AbortSignal;
  onProgress?: (event: ProgressEvent) => void;
  onEvent?: (event: RunEvent) => void;
  /** Called once the thread exists (before any test runs): the id `--resume` takes. */
  /** Once the run has started (or resumed): the id `--resume` takes, and the run's id, which the reports carry (unknown for a run started before it was kept). */
  onThread?: (threadId: string, runId?: string) => void;
  logger?: Logger;
}

export interface GraphSuiteOptions extends GraphSuiteRuntime {
  name: string;
  tests: SuiteTest[];
  baseUrl: string;
  /** MaxConcurrency of the Map state. */
  workers: number;
  /** Times a failed test is run again (the run's retries; default 0). */
  retries?: number;
  /** Thread id to use (default a new UUIDv7). */
  threadId?: string;
  /** Tests of the files that cannot run as written: reported as failed, in their place, without running. */
  invalid?: InvalidTest[];
  /** The folder its reports and artifacts go to, kept so a resumed run writes there too (beside the first part's screenshots). */
  out?: string;
  /** The --baselines folder (absolute), kept so a resumed run compares with the same baselines. */
  baselinesDir?: string;
  /** svc run's --no-heal, --heal-threshold and --trace, kept so a resumed run heals and traces as it began. */
  settings?: KeptRunSettings;
}

/** How svc run ran its tests, as a resumed run must too. */
export interface KeptRunSettings {
  heal: boolean;
  heal_threshold: number;
  trace: 'on-failure' | 'off';
}

export interface GraphSuiteOutcome {
  summary: RunSummary;
  threadId: string;
  /** completed: report ran; failed: the execution itself failed (error says why); interrupted: stopped by the signal, resumable. */
  status: 'completed' | 'failed' | 'interrupted';
  error?: string;
}

/** What a run directory keeps besides the checkpoints: enough to resume it. */
interface Manifest {
  version: 1;
  thread_id: string;
  organization_id: string;
  name: string;
  base_url: string;
  workers: number;
  healing: boolean;
  /** The files' tests in the given order, with the id each got in the run's store. */
  tests: Array<SuiteTest & { stored_id: string }>;
  /** The run's id (its reports' run.id), kept once the run has started. */
  run_id?: string;
  /** The files' invalid tests, reported (a resumed run's reports list them too). */
  invalid?: InvalidTest[];
  /** svc run's --out (absolute): where a resumed run writes its reports unless told otherwise. */
  out?: string;
  /** svc run's --baselines (absolute): where a resumed run's visual assertions find their baselines. */
  baselines?: string;
  /** svc run's healing and trace settings (absent on runs kept before they were). */
  settings?: KeptRunSettings;
}

export class ResumeError extends Error {}

const MANIFEST = 'manifest.json';

/**
 * `svc run` through the run graph: the test files become a project's tests in a store of
 * the run's own, and the same graph (asl/run-graph.asl.json on the local interpreter, the
 * same nodes, checkpoints and limits; Map MaxConcurrency = workers) runs them. The summary
 * is the RunSummary the reporters take, in the order the tests were given, with the
 * files' own test ids.
 */
export async function runSuiteThroughGraph(o: GraphSuiteOptions): Promise<GraphSuiteOutcome> {
  const threadId = o.threadId ?? uuidv7();
  const dir = o.stateDir ? runDir(o.stateDir, threadId) : undefined;
  if (dir) await mkdir(dir, { recursive: true });
  const table = new FileTable(dir);
  const store = createStore(table, systemClock);
  const manifest: Manifest = { version: 1, thread_id: threadId, organization_id: crypto.randomUUID(), name: o.name, base_url: o.baseUrl, workers: o.workers, healing: !!o.healer, tests: [], ...(o.invalid?.length && { invalid: o.invalid }), ...(o.out && { out: o.out }), ...(o.baselinesDir && { baselines: o.baselinesDir }), ...(o.settings && { settings: o.settings }) };
  const graph = manager(store, table, manifest, o);
  try {
    const project = await store.projects.create(manifest.organization_id, { name: o.name.slice(0, 255) || 'svc run', app_url: o.baseUrl });
    for (const t of o.tests) {
      const d = t.definition;
      const stored = await store.tests.create(manifest.organization_id, { project_id: project.id, name: d.name, description: d.description ?? null, type: d.type, steps: d.steps, assertions: d.assertions, priority: d.priority, tags: d.tags, timeout_ms: d.timeout_ms, parameters: d.parameters, parameter_sets: d.parameter_sets, ...(d.browser && { browser: d.browser }) }, { changed_by: 'system:cli' });
      if (d.quarantine) await store.tests.setQuarantine(manifest.organization_id, stored.id, { reason: d.quarantine, since: new Date().toISOString(), by: null });
      manifest.tests.push({ ...t, stored_id: stored.id });
    }
    if (dir) await writeFile(join(dir, MANIFEST), JSON.stringify(manifest));
    const { run } = await graph.start(manifest.organization_id, null, {
      project_id: project.id,
      // A test whose cases were narrowed (svc run --grep) is asked for by its case ids.
      test_ids: manifest.tests.flatMap((t) => (t.cases ? t.cases.map((n) => caseId(t.stored_id, n)) : [t.stored_id])),
      thread_id: threadId,
      trigger: 'ci',
      healing_enabled: manifest.healing,
      max_concurrency: Math.max(1, Math.min(32, o.workers)),
      ...(o.retries ? { retries: o.retries } : {}),
      ...(o.baselineMode ? { baseline_mode: o.baselineMode } : {}),
    } as never);
    manifest.run_id = run.id;
    if (dir) await writeFile(join(dir, MANIFEST), JSON.stringify(manifest));
    o.onThread?.(threadId, run.id);
    return await finish(graph, manifest, o, dir);
  } finally {
    await graph.close();
    await table.close();
  }
}

/**
 * Continues a run that was interrupted (Ctrl-C, a kill, a crash) from its last
 * checkpoint: finished tests are not run again; the one in flight is.
 */
export async function resumeSuiteThroughGraph(id: string, o: GraphSuiteRuntime & { stateDir: string }): Promise<GraphSuiteOutcome> {
  const kept = await keptRun(o.stateDir, id);
  if (!kept) throw new ResumeError(`no resumable run ${id} in ${join(o.stateDir, 'runs')} (a run that finished keeps nothing to resume)`);
  const { dir, manifest } = kept;
  const threadId = manifest.thread_id;
  let table: FileTable;
  try {
    table = new FileTable(dir);
  } catch (err) {
    throw new ResumeError(`cannot open run ${threadId}: ${(err as Error).message}`);
  }
  const store = createStore(table, systemClock);
  const graph = manager(store, table, manifest, { ...o, healer: manifest.healing ? o.healer : undefined });
  try {
    await graph.resume(manifest.organization_id, threadId);
    o.onThread?.(threadId, manifest.run_id);
    return await finish(graph, manifest, o, dir);
  } finally {
    await graph.close();
    await table.close();
  }
}

/**
 * The folders an interrupted run began with (svc run --out and --baselines) and how it healed
 * and traced, so --resume uses them too; each undefined when unknown (a run kept before it was
 * recorded). A resumed run that healed with the default threshold where the run began with a
 * stricter one, or healed where it began with --no-heal, could pass a test that should fail.
 */
export async function keptRunOptions(stateDir: string, id: string): Promise<{ out?: string; baselines?: string; settings?: KeptRunSettings }> {
  const manifest = (await keptRun(stateDir, id))?.manifest;
  return { out: manifest?.out, baselines: manifest?.baselines, settings: manifest?.settings };
}

/** A kept run by its thread's id (its folder) or by its run id (the reports'). */
async function keptRun(stateDir: string, id: string): Promise<{ dir: string; manifest: Manifest } | undefined> {
  const dir = runDir(stateDir, id);
  try {
    return { dir, manifest: JSON.parse(await readFile(join(dir, MANIFEST), 'utf8')) as Manifest };
  } catch {
    return manifestOfRun(stateDir, id);
  }
}

/** The kept (unfinished) run whose run id is `runId`, among the few a state folder holds. */
async function manifestOfRun(stateDir: string, runId: string): Promise<{ dir: string; manifest: Manifest } | undefined> {
  const runs = join(stateDir, 'runs');
  const threads = await readdir(runs).catch(() => [] as string[]);
  for (const thread of threads) {
    const dir = join(runs, thread);
    const manifest = await readFile(join(dir, MANIFEST), 'utf8').then((text) => JSON.parse(text) as Manifest).catch(() => undefined);
    if (manifest?.run_id === runId) return { dir, manifest };
  }
  return undefined;
}

function runDir(stateDir: string, threadId: string): string {
  if (!/^[A-Za-z0-9._:-]{1,128}$/.test(threadId) || threadId.startsWith('.')) throw new ResumeError(`not a run id: ${threadId}`);
  return join(stateDir, 'runs', threadId);
}

function manager(store: Store, table: FileTable, manifest: Manifest, o: GraphSuiteRuntime): RunManager {
  // The manifest's tests are filled in after the manager exists (they need its store).
  const byStored = new Map<string, SuiteTest>();
  const lookup = (storedId: string) => {
    if (!byStored.has(storedId)) for (const t of manifest.tests) byStored.set(t.stored_id, t);
    return byStored.get(storedId);
  };
  // A parameter set's case `<stored id>[n]` is `<file id>[n]`.
  const fileId = (storedId: string) => {
    const { testId, index } = splitCaseId(storedId);
    const id = lookup(testId)?.id ?? testId;
    return index === undefined ? id : caseId(id, index);
  };
  // A test's artifact folder is named by the file's id (`--out/artifacts/<test>/`), not the store's uuid.
  const artifacts: RunArtifacts = {
    put: (name, body, type) => o.artifacts.put(underFileFolder(name, lookup), body, type),
    ...(o.artifacts.read && { read: (key: string) => o.artifacts.read!(key) }),
  };
  // The fingerprints of a file's test are kept under the file's id, whatever id the run's store gave it.
  const fingerprints: FingerprintStore | undefined = o.fingerprints && {
    get: (id) => o.fingerprints!.get(fileId(id)),
    save: (id, f) => o.fingerprints!.save(fileId(id), f),
  };
  // Baselines too: a file's test keeps its baselines across runs whatever id the store gave it.
  const baselines: BaselineStore | undefined = o.baselines && {
    get: (id, name) => o.baselines!.get(fileId(id), name),
    put: (id, name, png, metadata) => o.baselines!.put(fileId(id), name, png, metadata),
  };
  const envs = createExecutionEnvs({
    store,
    artifactsDir: tmpdir(), // not used: artifacts go where `artifacts` says
    artifacts: () => artifacts,
    http: o.http,
    sql: o.sql,
    browser: o.browser,
    environment: o.environment,
    secrets: o.secrets,
    fingerprints,
    ...(o.stepHealer ? { stepHealer: () => underFileIds(o.stepHealer!, fileId) } : {}),
    traceOnFailure: o.traceOnFailure,
    ...(o.extractModel ? { extractModel: () => o.extractModel } : {}),
    ...(baselines ? { baselines: () => baselines } : {}),
  });
  const graph = createRunManager({
    store,
    table,
    // The CLI's event log only drives its progress lines: no full-state event per node.
    stateUpdates: false,
    clock: systemClock,
    logger: o.logger ?? silentLogger,
    envs,
    healer: o.healer,
    testExtras: (id) => {
      const t = lookup(id);
      return t && { timeout_ms: t.definition.timeout_ms, parameters: t.definition.parameters, ...(t.flows && { flows: t.flows }) };
    },
  });
  return graph;
}

/** The in-step healer, told the files' test ids (what it learns about a test outlives the run's store). */
const STORED_FOLDER = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})([^/]*)\/(.*)$/i;

/**
 * An artifact name `<stored id>[case]/<file>` as `<file id>[case]/<file>` (the runner names a
 * test's folder fileSafe(id), at most 120 characters); a name of no known test is kept.
 */
function underFileFolder(name: string, lookup: (storedId: string) => SuiteTest | undefined): string {
  const m = STORED_FOLDER.exec(name);
  const test = m ? lookup(m[1]) : undefined;
  return m && test ? `${(fileSafe(test.id) + m[2]).slice(0, 120) || 'test'}/${m[3]}` : name;
}

function underFileIds(healer: StepHealer, fileId: (storedId: string) => string): StepHealer {
  return new Proxy(healer, {
    get(target, key, receiver) {
      if (key !== 'heal') return Reflect.get(target, key, receiver);
      return (input: Parameters<StepHealer['heal']>[0]) => target.heal({ ...input, ...(input.testId ? { testId: fileId(input.testId) } : {}) });
    },
  });
}

/** Follows the run to its end (or the signal), then builds the summary from the last checkpoint. */
async function finish(graph: RunManager, manifest: Manifest, o: GraphSuiteRuntime, dir: string | undefined): Promise<GraphSuiteOutcome> {
  const threadId = manifest.thread_id;
  const end = await follow(graph, manifest, o);
  if (end.kind === 'interrupted') await graph.close(); // stop without cancelling: the checkpoints stay resumable
  const { state } = await graph.checkpointer.load(threadId);
  const status = end.kind === 'complete' ? 'completed' : end.kind === 'error' ? 'failed' : 'interrupted';
  const resume = `resume it with svc run --resume ${manifest.run_id ?? threadId}`;
  // A test the interruption cut off mid-way is not one that never started: the resume runs it again from its start.
  const why = (storedId: string) =>
    end.kind === 'interrupted'
      ? end.started.has(storedId)
        ? `not finished: the run was interrupted while this test ran; ${resume} (it runs again from its start)`
        : `not executed: the run was interrupted; ${resume}`
      : `not executed: ${end.kind === 'error' ? end.error : 'the run ended before this test ran'}`;
  const summary = { ...summaryOf(state, manifest, why), ...(status === 'interrupted' ? { unfinished: 'interrupted' as const } : {}), ...(end.kind === 'error' ? { error: end.error } : {}) };
  // A finished run has nothing left to resume: its checkpoints go (an interrupted one keeps them).
  if (dir && status !== 'interrupted') await rm(dir, { recursive: true, force: true }).catch(() => {});
  return { summary, threadId, status, ...(end.kind === 'error' ? { error: end.error } : {}) };
}

type End = { kind: 'complete' } | { kind: 'error'; error: string } | { kind: 'interrupted'; started: Set<string> };

/** Reads the run's events until it completes, turning test starts and ends into progress. */
async function follow(graph: RunManager, manifest: Manifest, o: GraphSuiteRuntime): Promise<End> {
  const threadId = manifest.thread_id;
  const cases = casesOfManifest(manifest);
  const byStored = new Map(cases.map((t) => [t.stored_id, t]));
  const reported = new Set<string>();
  /** Tests whose execution began (stored ids): an interruption cuts these off, it does not skip them. */
  const started = new Set<string>();
  let after = 0;
  let wake: (() => void) | undefined;
  const unwatch = graph.events.watch(threadId, () => wake?.());
  const onAbort = () => wake?.();
  o.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    for (;;) {
      if (o.signal?.aborted) return { kind: 'interrupted', started };
      for (const e of await graph.events.after(threadId, after, 200)) {
        after = e.id;
        o.onEvent?.(e);
        const t = e.data.test_id ? byStored.get(String(e.data.test_id)) : undefined;
        if (t && e.type === 'node_start' && e.data.node === 'execute_test') {
          started.add(t.stored_id);
          o.onProgress?.({ type: 'test_start', test_id: t.id, name: t.name, worker: 0 });
        }
        if (t && e.type === 'node_end' && (e.data.node === 'execute_test' || e.data.node === 'self_heal') && !reported.has(t.stored_id)) {
          // The test's iteration may be over (its final result is in the state) or go on (self_heal, a re-run).
          const { state } = await graph.checkpointer.load(threadId);
          const r = resultOf(state, t.stored_id);
          if (r && iterationDone(state, t.stored_id)) {
            reported.add(t.stored_id);
            o.onProgress?.({ type: 'test_end', result: asExecution(t, r), done: reported.size, total: cases.length });
          }
        }
        if (e.type === 'complete') return { kind: 'complete' };
        if (e.type === 'error') return { kind: 'error', error: String(e.data.error ?? 'the run failed') };
      }
      await new Promise<void>((r) => {
        wake = r;
        setTimeout(r, 500).unref();
      });
    }
  } finally {
    unwatch();
    o.signal?.removeEventListener('abort', onAbort);
  }
}

/** True when nothing more will happen to the test in this run: no heal, approval or re-run ahead. */
function iterationDone(state: RunGraphState, testId: string): boolean {
  const r = resultOf(state, testId);
  if (!r || !finalStatuses.has(r.status) || state.graph.rerun.includes(testId)) return false;
  const h = state.graph.heal[testId];
  if (h && (h.status === 'awaiting_approval' || h.status === 'approved')) return false;
  return r.status !== 'FAILED' || routeAfterExecute(state, testId) === 'done';
}

/** One execution of the run: a file's test, or one parameter set's case of it. */
interface Case {
  /** The id in the run's store (`<stored id>[n]` for a case). */
  stored_id: string;
  /** The id in reports (`<file id>[n]` for a case). */
  id: string;
  name: string;
  test: SuiteTest;
}

/** The manifest's tests as the run executes them: each parameter set a case of its own, in the files' order. */
function casesOfManifest(manifest: Manifest): Case[] {
  return manifest.tests.flatMap((t) => {
    const sets = t.definition.parameter_sets ?? [];
    if (!sets.length) return [{ stored_id: t.stored_id, id: t.id, name: t.definition.name, test: t }];
    return parameterCases(t.stored_id, sets)
      .filter((c) => !t.cases || t.cases.includes(c.index))
      .map((c) => ({ stored_id: caseId(t.stored_id, c.index), id: caseId(t.id, c.index), name: caseName(t.definition.name, c.name), test: t }));
  });
}

/** A result of the run state as the runner's result, under the file's test (or case) id. */
function asExecution(c: Case, r: TestResult): TestExecutionResult {
  const t = c.test;
  const base = executionResultOf({
    test_id: c.id,
    status: r.status,
    duration_ms: r.duration_ms,
    error_message: r.error_message,
    screenshots: r.screenshots,
    metadata: { ...r.metadata, assertions_passed: r.assertions_passed, assertions_failed: r.assertions_failed, ...(r.stack_trace ? { stack_trace: r.stack_trace } : {}) },
  });
  return { ...base, name: c.name, type: t.definition.type, metadata: { ...t.metadata, ...base.metadata, priority: t.definition.priority, tags: t.definition.tags, ...(t.definition.quarantine ? { quarantined: t.definition.quarantine } : {}) } };
}

function summaryOf(state: RunGraphState, manifest: Manifest, notRun: (storedId: string) => string): RunSummary {
  const now = new Date().toISOString();
  const perTest = manifest.tests.map(() => [] as TestExecutionResult[]);
  for (const c of casesOfManifest(manifest)) perTest[manifest.tests.indexOf(c.test as Manifest['tests'][number])]!.push(caseResult(c));
  const results = inFileOrder(perTest, manifest.invalid ?? [], state.started_at);
  const finished = state.completed_at ?? now;
  return {
    run_id: state.run_id,
    name: manifest.name,
    base_url: manifest.base_url,
    started_at: state.started_at,
    finished_at: finished,
    duration_ms: Math.max(0, Date.parse(finished) - Date.parse(state.started_at)),
    workers: Math.max(1, Math.min(manifest.workers, results.length || 1)),
    ...runTotals(results),
    results,
  };

  function caseResult(c: Case): TestExecutionResult {
    const r = resultOf(state, c.stored_id);
    if (r && finalStatuses.has(r.status)) return asExecution(c, r);
    const at = state.completed_at ?? now;
    return asExecution(c, { test_id: c.stored_id, status: 'SKIPPED', duration_ms: 0, assertions_passed: 0, assertions_failed: 0, error_message: notRun(c.stored_id), stack_trace: null, screenshots: [], metadata: { name: c.name, type: c.test.definition.type, started_at: at, finished_at: at } });
  }
}
