import { AppError, notFound, validationFailed } from '../errors.ts';
import { uuidv7 } from '../ids.ts';
import type { GraphDeps } from './deps.ts';
import type { Approval } from './approvals-repo.ts';
import { planOutput } from './plan-tests.ts';
import { publishHealOutcome } from './heal-events.ts';
import { validatedEdit } from './state-edits.ts';
import { type ApprovalDecision, type ApprovalEntry, type RunGraphState } from './state.ts';
import type { Write } from './writes.ts';
import { setRunStatus } from './run-total.ts';

export type InterruptNode = 'execute_test' | 'self_heal';

/** What the waiting Task state returns once decided (SendTaskSuccess output). */
export type DecisionOutput = Record<string, unknown> & { thread_id: string; decision: ApprovalDecision };

export type ApprovalRequest = { status: 'decided'; output: DecisionOutput } | { status: 'waiting'; approval: ApprovalEntry };

/**
 * The approval workflow (spec): Running → Interrupted (checkpoint saved) →
 * AwaitingApproval (interrupt event) → approve (resume unchanged) | modify (resume with
 * the validated modified state) | reject (the node is skipped). An expired approval is a
 * reject whose reason is recorded. Decisions are conditional writes: deciding twice, or
 * deciding a run that is not waiting, is a 409 and changes nothing.
 */
export function approvalService(deps: GraphDeps) {
  const now = () => deps.clock.now();

  /** Called by the waiting Task state (request_approval). Idempotent: a resumed run re-waits on the same approval. */
  async function request(threadId: string, node: InterruptNode, testId: string | null, taskToken: string): Promise<ApprovalRequest> {
    let { state, checkpoint } = await deps.checkpointer.load(threadId);
    const key = interruptKey(state, node, testId);
    let entry = state.graph.approvals.findLast((a) => a.interrupt_key === key);
    if (entry?.status === 'superseded') entry = undefined; // a replay: ask again
    if (entry && entry.status !== 'pending') return { status: 'decided', output: decisionOutput(state, entry) };
    const cfg = state.graph.config;
    if (!entry) {
      const requested = now();
      const reason =
        node === 'execute_test'
          ? `test plan approval required before executing ${state.test_plan.length} test${state.test_plan.length === 1 ? '' : 's'}`
          : (state.graph.heal[testId!]?.reason ?? 'healing approval required before applying a fix');
      const fresh: ApprovalEntry = {
        approval_id: uuidv7(requested.getTime()),
        interrupt_key: key,
        node,
        test_id: testId,
        status: 'pending',
        reason,
        requested_at: requested.toISOString(),
        expires_at: new Date(requested.getTime() + cfg.approval_timeout_seconds * 1000).toISOString(),
        decided_at: null,
        decided_by: null,
        comment: null,
      };
      const committed = await deps.checkpointer.commit(threadId, {
        node,
        metadata: { interrupt: { approval_id: fresh.approval_id, node, test_id: testId } },
        writes: () => [{ channel: 'approval', value: fresh }],
      });
      ({ state, checkpoint } = committed);
      entry = fresh;
    }
    const proposal = node === 'execute_test' ? { tests: state.test_plan.map((t) => ({ id: t.id, name: t.name, type: t.type, priority: t.priority })) } : (state.graph.heal[testId!]?.proposal ?? null);
    const approval: Approval = {
      ...entry,
      organization_id: cfg.organization_id,
      project_id: cfg.project_id,
      thread_id: threadId,
      run_id: state.run_id,
      status: 'pending',
      checkpoint_id: checkpoint.checkpoint_id,
      proposal,
    };
    const created = await deps.approvals.create(approval, taskToken);
    if (!created) await deps.approvals.setToken(cfg.organization_id, entry.approval_id, taskToken);
    else {
      await setRunStatus(deps, state, 'awaiting_approval', 'running');
      await deps.events.append(threadId, { type: 'interrupt', data: { node, reason: entry.reason, approval_id: entry.approval_id, test_id: testId, expires_at: entry.expires_at } });
    }
    // Decided between the checkpoint and here (another process)? Then it is not waiting.
    const stored = await deps.approvals.get(cfg.organization_id, entry.approval_id);
    if (stored && stored.status !== 'pending') {
      const latest = (await deps.checkpointer.load(threadId)).state;
      const decided = latest.graph.approvals.findLast((a) => a.approval_id === entry!.approval_id)!;
      if (decided.status !== 'pending') return { status: 'decided', output: decisionOutput(latest, decided) };
    }
    return { status: 'waiting', approval: entry };
  }

  /**
   * The thread `given` names in the caller's organization: svc's thread id, a name the
   * organization chose for it (thread-names.ts), or the id of the run on it. A run's thread
   * is usually named by its run id already; a named thread (a chosen thread_id, a schedule's,
   * a webhook's) is not, and a caller holding only the run id (svc_test's run.id) got a 404.
   */
  async function threadNamedBy(orgId: string, given: string): Promise<string> {
    const thread = await deps.threads.ownedBy(orgId, given);
    if (thread) return thread.threadId;
    const run = /^[0-9a-f-]{36}$/i.test(given) ? await deps.store.testRuns.get(orgId, given) : undefined;
    const onIt = run ? await deps.threads.ownedBy(orgId, run.thread_id) : undefined;
    if (!run || !onIt) throw notFound('run or thread');
    // The thread went on to a later run: its pending approval, if any, is not this run's to decide.
    if (onIt.owner.run_id !== run.id) throw new AppError('CONFLICT', `run ${run.id} is not waiting for approval: its thread ${onIt.threadId} belongs to a later run (${onIt.owner.run_id})`);
    return onIt.threadId;
  }

  /**
   * Decides a pending approval of the thread `given` names (the thread, its name or its
   * run): `approvalId` names it, or the thread's only pending one is meant. The caller's
   * organization must own the thread.
   */
  async function decide(
    orgId: string,
    given: string,
    decision: Exclude<ApprovalDecision, 'cancelled'>,
    opts: { approvalId?: string; state?: Record<string, unknown>; comment?: string; by: string | null },
  ): Promise<{ approval: ApprovalEntry; output: DecisionOutput; threadId: string }> {
    const threadId = await threadNamedBy(orgId, given);
    const head = (await deps.checkpointer.load(threadId)).state;
    const pending = head.graph.approvals.filter((a) => a.status === 'pending' && (!opts.approvalId || a.approval_id === opts.approvalId));
    if (!pending.length) throw new AppError('CONFLICT', opts.approvalId ? `approval ${opts.approvalId} is not pending on thread ${threadId}` : `thread ${threadId} is not waiting for approval`);
    if (pending.length > 1) throw new AppError('CONFLICT', `thread ${threadId} has ${pending.length} pending approvals; name one with approval_id`, { approval_ids: pending.map((a) => a.approval_id) });
    const target = pending[0];
    const patch = decision === 'modified' ? validatedPatch(head, opts.state ?? {}) : null;

    const decidedAt = now().toISOString();
    const comment = opts.comment ?? (decision === 'expired' ? `approval timed out after ${head.graph.config.approval_timeout_seconds} s; treated as a reject` : null);
    const stored = await deps.approvals.decide(orgId, target.approval_id, { status: decision, decided_at: decidedAt, decided_by: opts.by, comment });
    if (stored === false) throw new AppError('CONFLICT', `approval ${target.approval_id} was already decided`);

    const entry: ApprovalEntry = { ...target, status: decision, decided_at: decidedAt, decided_by: opts.by, comment };
    const committed = await deps.checkpointer.commit(threadId, {
      node: target.node,
      source: 'update',
      metadata: { approval: { approval_id: entry.approval_id, decision } },
      writes: (s) => decisionWrites(s, entry, patch),
    });
    const state = committed.state;
    if (!state.graph.approvals.some((a) => a.status === 'pending')) await setRunStatus(deps, state, 'running', 'awaiting_approval');
    await deps.events.append(threadId, { type: 'resume', data: { node: entry.node, decision, approval_id: entry.approval_id, test_id: entry.test_id, comment } });
    const output = decisionOutput(state, entry);
    // A rejected (or expired) fix ends that test's healing: the self-healer does not run again.
    if (entry.node === 'self_heal' && entry.test_id && state.graph.heal[entry.test_id]?.status === 'rejected') await publishHealOutcome(deps, threadId, state, entry.test_id);
    try {
      await deps.sendTaskSuccess(stored.task_token, output);
    } catch (err) {
      // The decision is in the checkpoint: a resumed execution reads it from there.
      deps.logger.warn('approval decided but the waiting workflow could not be signalled', { thread_id: threadId, approval_id: entry.approval_id, error: (err as Error).message });
    }
    return { approval: entry, output, threadId };
  }

  /** Expires every pending approval past its time (treated as a reject, reason recorded). */
  async function expireDue(): Promise<number> {
    let n = 0;
    for (const a of await deps.approvals.due(now().toISOString())) {
      try {
        await decide(a.organization_id, a.thread_id, 'expired', { approvalId: a.approval_id, by: null });
        n++;
      } catch (err) {
        if (!(err instanceof AppError && err.code === 'CONFLICT')) throw err;
      }
    }
    return n;
  }

  return { request, decide, expireDue };
}

export type ApprovalService = ReturnType<typeof approvalService>;

function interruptKey(state: RunGraphState, node: InterruptNode, testId: string | null): string {
  if (node === 'execute_test') return 'plan';
  return `heal:${testId}:${state.graph.heal[testId!]?.attempts ?? 0}`;
}

/**
 * Fields of the state to replace, validated (state-edits.ts). The results can only be
 * kept as they are at an approval, so they are not written: tests finishing in parallel
 * meanwhile keep their results.
 */
function validatedPatch(state: RunGraphState, patch: Record<string, unknown>): Record<string, unknown> {
  if (!Object.keys(patch).length) throw validationFailed([{ path: 'state', message: 'give at least one field to modify' }]);
  const edited = validatedEdit(state, patch, 'approval');
  return Object.fromEntries(Object.keys(patch).filter((f) => f !== 'test_results').map((f) => [f, (edited as Record<string, unknown>)[f]]));
}

function decisionWrites(state: RunGraphState, entry: ApprovalEntry, patch: Record<string, unknown> | null): Write[] {
  const writes: Write[] = [{ channel: 'approval', value: entry }];
  for (const [field, value] of Object.entries(patch ?? {})) writes.push({ channel: 'replace', field: field as never, value });
  if (entry.node === 'self_heal' && entry.test_id) {
    const h = state.graph.heal[entry.test_id];
    if (h) {
      const go = entry.status === 'approved' || entry.status === 'modified';
      let proposal = h.proposal;
      const edited = patch?.test_plan as Array<{ id: string }> | undefined;
      const editedTest = edited?.find((t) => t.id === entry.test_id);
      if (go && entry.status === 'modified' && editedTest) proposal = { ...(proposal ?? {}), test: editedTest, modified_by_reviewer: true };
      const reason = go ? null : `fix ${entry.status}${entry.comment ? `: ${entry.comment}` : ''}; the test stays failed`;
      writes.push({ channel: 'heal', value: { test_id: entry.test_id, record: { ...h, status: go ? 'approved' : 'rejected', reason, proposal } } });
    }
  }
  return writes;
}

/** The Task state's output for a decision: Choice states route on `decision`. */
export function decisionOutput(state: RunGraphState, entry: ApprovalEntry): DecisionOutput {
  const base = { thread_id: state.graph.config.thread_id, decision: entry.status as ApprovalDecision, approval_id: entry.approval_id };
  if (entry.node === 'execute_test') return { ...base, ...planOutput(state) };
  return { ...base, test_id: entry.test_id };
}

