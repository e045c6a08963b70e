import { AppError, notFound, validationFailed } from '../errors.ts';
import { distinctSelection, splitCaseId } from '../contracts/parameter-sets.ts';
import { isTerminalRunStatus, type TestRun } from '../contracts/test-run.ts';
import { runSourceOf, type RunSource } from '../contracts/run-source.ts';
import { toFieldIssues } from '../contracts/parse.ts';
import type { GraphDeps } from './deps.ts';
import { ProjectRunSettings, type RunStartInput, type RunStatus } from './contracts.ts';
import { validatedEdit } from './state-edits.ts';
import { DEFAULT_MAX_CONCURRENCY, initialState, RunGraphStateSchema, type ApprovalEntry, type RunGraphState } from './state.ts';
import { summaryOf } from './report.ts';
import { endOpenNodes } from './node-events.ts';
import { healingSettings } from '../healing/service/settings.ts';

/**
 * Run lifecycle in the domain: create a run and its thread, look it up, cancel it, and
 * prepare replays and forks. Starting the workflow itself is the caller's (the run
 * manager's) job, so the same service serves the local interpreter and Step Functions.
 */
export function runService(deps: GraphDeps) {
  const { store } = deps;

  /** The run and thread named by `id` (a run id or a thread id) in the caller's organization. */
  async function resolve(orgId: string, id: string): Promise<{ run: TestRun; threadId: string }> {
    const byRun = /^[0-9a-f-]{36}$/i.test(id) ? await store.testRuns.get(orgId, id) : undefined;
    if (byRun) return { run: byRun, threadId: byRun.thread_id };
    const thread = await deps.threads.ownedBy(orgId, id);
    if (!thread) throw notFound('run');
    const run = await store.testRuns.get(orgId, thread.owner.run_id);
    if (!run) throw notFound('run');
    return { run, threadId: thread.threadId };
  }

  /**
   * Starts a run. `source` is what a webhook knows of the code (host and repository too);
   * an API caller's `input.source` is used otherwise.
   */
  async function start(orgId: string, userId: string | null, input: RunStartInput, trigger?: string, source?: RunSource): Promise<{ run: TestRun; threadId: string }> {
    const sourcePr = input.source?.pull_request?.number;
    // Two numbers for one pull request would make its status and its comparison disagree.
    if (sourcePr !== undefined && input.pr_number !== undefined && sourcePr !== input.pr_number) {
      throw validationFailed([{ path: 'source.pull_request.number', message: `pull request ${sourcePr} is not pr_number ${input.pr_number}: give one number (or only one of them)` }]);
    }
    const runSource = source ?? (input.source ? runSourceOf(input.source) : undefined);
    const project = await store.projects.get(orgId, input.project_id);
    if (!project) throw notFound('project');
    const settings = ProjectRunSettings.safeParse(project.config ?? {});
    if (!settings.success) throw validationFailed(toFieldIssues(settings.error).map((i) => ({ ...i, path: `project.config.${i.path}` })));
    // What the run will execute, counted as the plan will count it: a parameterised test is a case per set.
    let planned = 0;
    // Named twice, or a case beside its whole test: the plan has it once, and so does the count (found by QA: 3 of 1).
    const testIds = input.test_ids ? distinctSelection(input.test_ids) : undefined;
    if (testIds) {
      // A case id names one parameter set: the test must exist in the project and have it.
      const wanted = testIds.map(splitCaseId);
      const found = await Promise.all(wanted.map((w) => store.tests.get(orgId, w.testId)));
      const isHere = (i: number) => !!found[i] && found[i]!.project_id === input.project_id;
      const missing = testIds.filter((_, i) => !isHere(i));
      if (missing.length) throw new AppError('NOT_FOUND', `test${missing.length > 1 ? 's' : ''} not found in this project: ${missing.join(', ')}`, { test_ids: missing });
      // The test is there; the case it names is not: say how many sets it has.
      const noSuchCase = testIds.flatMap((id, i) => ((wanted[i].index ?? 0) > found[i]!.parameter_sets.length ? [{ id, sets: found[i]!.parameter_sets.length }] : []));
      if (noSuchCase.length) {
        const why = noSuchCase.map(({ id, sets }) => `${id}: the test has ${sets ? `${sets} parameter set${sets > 1 ? 's' : ''} ([1]…[${sets}])` : 'no parameter sets (name the test without [n])'}`);
        throw new AppError('NOT_FOUND', `no such case: ${why.join('; ')}`, { test_ids: noSuchCase.map((c) => c.id) });
      }
      planned = wanted.reduce((n, w, i) => n + (w.index !== undefined ? 1 : Math.max(1, found[i]!.parameter_sets.length)), 0);
    }
    const s = settings.data;
    const appUrl = input.app_url ?? project.app_url ?? '';
    const maxConcurrency = input.max_concurrency ?? s.max_concurrency ?? DEFAULT_MAX_CONCURRENCY;
    const run = await store.testRuns.create(orgId, { project_id: input.project_id, thread_id: input.thread_id, trigger: trigger ?? input.trigger, total_tests: planned, source: runSource, app_url: appUrl, max_concurrency: maxConcurrency });
    const threadId = run.thread_id;
    await deps.threads.markActive(threadId, { organization_id: orgId, run_id: run.id });
    const state = initialState({
      run_id: run.id,
      started_at: deps.clock.now().toISOString(),
      app_url: appUrl,
      codebase_path: input.codebase_path ?? project.repo_url ?? '',
      pr_number: input.pr_number ?? runSource?.pull_request?.number ?? null,
      changed_files: input.changed_files ?? [],
      user_id: userId,
      max_iterations: input.max_iterations,
      config: {
        thread_id: threadId,
        organization_id: orgId,
        project_id: input.project_id,
        trigger: trigger ?? input.trigger,
        test_ids: testIds ?? null,
        // config.healing.enabled: false switches healing off for the project, whatever the run asks (self_heal included).
        healing_enabled: healingSettings(project.config).settings.enabled && (input.healing_enabled ?? s.healing_enabled ?? true),
        require_test_plan_approval: input.require_test_plan_approval ?? s.require_test_plan_approval ?? false,
        require_healing_approval: input.require_healing_approval ?? s.require_healing_approval ?? false,
        approval_timeout_seconds: input.approval_timeout_seconds ?? s.approval_timeout_seconds ?? undefined,
        max_concurrency: maxConcurrency,
        baseline_mode: input.baseline_mode ?? s.baseline_mode ?? undefined,
        retries: input.retries ?? s.retries ?? undefined,
        cost_limit_usd: input.cost_limit_usd,
      },
    });
    await deps.checkpointer.start(threadId, state);
    const started = await store.testRuns.setStatus(orgId, run.id, 'running', { started_at: state.started_at }, 'pending');
    await deps.events.append(threadId, { type: 'state_update', data: { state } });
    return { run: started, threadId };
  }

  async function status(orgId: string, id: string, active: boolean): Promise<RunStatus> {
    const { run, threadId } = await resolve(orgId, id);
    const head = await store.checkpoints.head(threadId);
    const state = head ? (await deps.checkpointer.load(threadId)).state : undefined;
    // The record is created before the plan exists; the plan lives in the run state.
    const plan = run.test_plan.length || !state?.test_plan.length ? run.test_plan : (state.test_plan as TestRun['test_plan']);
    const { test_plan: _plan, ...record } = run;
    return {
      thread_id: threadId,
      active,
      next_agent: state?.next_agent ?? '',
      iteration: state?.iteration ?? 0,
      current_test_index: state?.current_test_index ?? 0,
      passed_count: state?.passed_count ?? 0,
      failed_count: state?.failed_count ?? 0,
      skipped_count: state?.skipped_count ?? 0,
      total_cost: state?.total_cost ?? 0,
      pending_approvals: (state?.graph.approvals ?? []).filter((a) => a.status === 'pending').map((a) => ({ approval_id: a.approval_id, node: a.node, test_id: a.test_id, reason: a.reason, expires_at: a.expires_at })),
      stop: state?.graph.stop ?? null,
      last_event_id: await deps.events.lastId(threadId),
      checkpoint_id: head ?? null,
      // The run last, its plan (every test's steps) last in it: a reader that cuts a long answer —
      // an assistant's tool result is cut at 100,000 characters — keeps the status and totals (noted by QA).
      run: { ...record, test_plan: plan },
    };
  }

  /** Marks a run cancelled: run record, pending approvals, the active set and a complete event. */
  async function markCancelled(orgId: string, given: string, by: string | null): Promise<TestRun> {
    const thread = await deps.threads.ownedBy(orgId, given);
    if (!thread) throw notFound('run');
    const { threadId, owner } = thread;
    const run = await store.testRuns.get(orgId, owner.run_id);
    if (!run) throw notFound('run');
    if (isTerminalRunStatus(run.status)) throw new AppError('CONFLICT', `run ${run.id} is already ${run.status}`);
    const at = deps.clock.now().toISOString();
    const { state } = await deps.checkpointer.load(threadId);
    // The report node does not run for a cancelled run: its totals are the state's as it stands (they stayed 0; found by QA).
    // Once planned, the plan is what the run executes (an approval may have shortened it); before, the count made at the start.
    const total = state.graph.routes.plan_tests ? state.test_plan.length : run.total_tests;
    const cancelled = await store.testRuns.setStatus(
      orgId,
      run.id,
      'cancelled',
      { completed_at: at, error: `cancelled${by ? ` by ${by}` : ''}`, total_tests: total, passed_tests: state.passed_count, failed_tests: state.failed_count, results: summaryOf({ ...state, completed_at: at }, 'cancelled', { total }) },
      run.status,
    );
    const pending = state.graph.approvals.filter((a) => a.status === 'pending');
    for (const a of pending) await deps.approvals.decide(orgId, a.approval_id, { status: 'cancelled', decided_at: at, decided_by: by, comment: 'the run was cancelled' });
    const committed = await deps.checkpointer.commit(threadId, {
      node: 'cancel',
      source: 'update',
      writes: () => [
        ...pending.map((a) => ({ channel: 'approval' as const, value: { ...a, status: 'cancelled' as const, decided_at: at, decided_by: by, comment: 'the run was cancelled' } })),
        { channel: 'replace', field: 'should_continue', value: false },
        { channel: 'replace', field: 'completed_at', value: at },
      ],
    });
    await deps.threads.markFinished(threadId);
    // The nodes the cancel cut short end here, before complete ends the streams.
    await endOpenNodes(deps, threadId, 'cancelled');
    await deps.events.append(threadId, { type: 'complete', data: { summary: summaryOf(committed.state, 'cancelled', { total }) } });
    return cancelled;
  }

  /**
   * Replay: the thread's head goes back to `checkpointId` and the run reopens; the caller
   * then starts the workflow, which re-executes every node after that checkpoint.
   * Results are stored with attempt numbers after the ones already stored.
   */
  async function prepareReplay(orgId: string, given: string, checkpointId: string): Promise<TestRun> {
    const thread = await deps.threads.ownedBy(orgId, given);
    if (!thread) throw notFound('thread');
    const { threadId, owner } = thread;
    const cp = await store.checkpoints.get(threadId, '', checkpointId);
    if (!cp) throw notFound('checkpoint');
    const run = await store.testRuns.get(orgId, owner.run_id);
    if (!run) throw notFound('run');
    const stored = await store.testRuns.results(orgId, run.id);
    const offset = Math.max(0, ...stored.map((r) => r.attempt));
    await deps.checkpointer.rewind(threadId, checkpointId);
    await deps.threads.markActive(threadId, owner);
    // Approvals pending at that checkpoint but decided since (on the abandoned branch) are asked again.
    const rewound = (await deps.checkpointer.load(threadId)).state;
    const stale: ApprovalEntry[] = [];
    for (const a of rewound.graph.approvals.filter((x) => x.status === 'pending')) {
      const stored = await deps.approvals.get(orgId, a.approval_id);
      if (!stored || stored.status !== 'pending') stale.push({ ...a, status: 'superseded', comment: 'the run was replayed from before this decision; asked again' });
    }
    await deps.checkpointer.commit(threadId, {
      node: 'replay',
      source: 'update',
      metadata: { replay_of: checkpointId },
      writes: () => [
        { channel: 'config', value: { attempt_offset: offset } },
        { channel: 'replace', field: 'completed_at', value: null },
        { channel: 'replace', field: 'should_continue', value: true },
        ...stale.map((a) => ({ channel: 'approval' as const, value: a })),
      ],
    });
    // Replay reopens a finished run (the one exception to the run status transitions).
    const reopened = await store.testRuns.setStatus(orgId, run.id, 'running', { completed_at: null, error: null }, run.status);
    await deps.events.append(threadId, { type: 'log', data: { level: 'info', message: `replaying from checkpoint ${checkpointId}` } });
    return reopened;
  }

  /** Fork: a new run and thread whose first checkpoint is `checkpointId`'s state, optionally edited. */
  async function fork(orgId: string, userId: string | null, given: string, checkpointId: string, patch?: Record<string, unknown>): Promise<{ run: TestRun; threadId: string }> {
    const thread = await deps.threads.ownedBy(orgId, given);
    if (!thread) throw notFound('thread');
    const { threadId, owner } = thread;
    const source = await deps.checkpointer.load(threadId, checkpointId).catch((err) => {
      if (err instanceof AppError && err.code === 'NOT_FOUND') throw notFound('checkpoint');
      throw err;
    });
    const edited = applyPatch(source.state, patch);
    // The fork tests the same code as its run: it keeps that run's source (branch, commit, pull request),
    // and its record keeps the URL the fork tests (the state's, which an edit may change), as every run's does.
    const forkedRun = await store.testRuns.get(orgId, owner.run_id);
    const appUrl = edited.app_url || forkedRun?.app_url || undefined;
    const run = await store.testRuns.create(orgId, { project_id: edited.graph.config.project_id, trigger: 'fork', total_tests: edited.test_plan.length, source: forkedRun?.source ?? undefined, app_url: appUrl, max_concurrency: edited.graph.config.max_concurrency });
    const newThread = run.thread_id;
    await deps.threads.markActive(newThread, { organization_id: orgId, run_id: run.id });
    const state: RunGraphState = RunGraphStateSchema.parse({
      ...edited,
      run_id: run.id,
      user_id: userId ?? edited.user_id,
      started_at: deps.clock.now().toISOString(),
      completed_at: null,
      should_continue: true,
      graph: { ...edited.graph, config: { ...edited.graph.config, thread_id: newThread, trigger: 'fork', attempt_offset: 0 }, forked_from: { thread_id: threadId, checkpoint_id: checkpointId } },
    });
    await deps.checkpointer.start(newThread, state, { source: 'fork', forked_from: { thread_id: threadId, checkpoint_id: checkpointId } });
    const started = await store.testRuns.setStatus(orgId, run.id, 'running', { started_at: state.started_at }, 'pending');
    await deps.events.append(newThread, { type: 'state_update', data: { state } });
    return { run: started, threadId: newThread };
  }

  return { resolve, start, status, markCancelled, prepareReplay, fork };
}

export type RunService = ReturnType<typeof runService>;

function applyPatch(state: RunGraphState, patch?: Record<string, unknown>): RunGraphState {
  if (!patch || !Object.keys(patch).length) return state;
  const edited = validatedEdit(state, patch, 'fork');
  // Results edited away are tests to run again: drop their attempts and healing so the graph redoes them.
  const kept = new Set(edited.test_results.map((r) => r.test_id));
  const g = structuredClone(state.graph);
  for (const id of Object.keys(g.attempts)) if (!kept.has(id)) {
    delete g.attempts[id];
    delete g.heal[id];
    delete g.test_steps[id];
  }
  if (patch.test_plan !== undefined || patch.test_results !== undefined) delete g.routes.report;
  return { ...edited, graph: g };
}
