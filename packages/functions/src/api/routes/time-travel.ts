import { z } from 'zod';
import type { Hono } from 'hono';
import { notFound } from '@svc/core/errors';
import { listResponse, ListQuery } from '@svc/core/contracts/common';
import { CheckpointSummarySchema, CheckpointWriteSchema, CompareQuery, ForkInput, ReplayInput, StateDiffSchema } from '@svc/core/contracts/checkpoint';
import { TestRunSchema } from '@svc/core/contracts/test-run';
import { JsonObject } from '@svc/core/contracts/common';
import { diffStates } from '@svc/core/run-graph/time-travel';
import type { ApiEnv } from '../env.ts';
import { mountRoute, type RouteDef } from '../route.ts';
import { runGraphOf, userOf, type RunGraphAppDeps } from './runs.ts';

const ThreadParams = z.strictObject({ thread_id: z.string().min(1).max(200).describe('Execution thread id') });
const StateResponse = CheckpointSummarySchema.extend({ state: JsonObject.describe('The run state at this checkpoint'), writes: z.array(CheckpointWriteSchema.omit({ blob: true }).extend({ value: z.unknown() })) });
const RunResponse = z.object({ run: TestRunSchema, thread_id: z.string(), stream_url: z.string() });

/**
 * Time travel (spec "Checkpoint operations"): a thread's checkpoints, the state at one,
 * replay (re-execute from a checkpoint, same thread), fork (a new thread branching from a
 * checkpoint, optionally with edited state) and compare (added, changed, unchanged fields).
 */
export function timeTravelRoutes(app: Hono<ApiEnv>, deps: RunGraphAppDeps, registry: RouteDef[]) {
  /** The thread `given` names for the organization (svc's id, or a name it chose), else 404. */
  const owned = async (orgId: string, given: string): Promise<string> => {
    const thread = await runGraphOf(deps).deps.threads.ownedBy(orgId, given);
    if (!thread) throw notFound('thread');
    return thread.threadId;
  };
  // One load: it reads the checkpoint with its lineage, and answers 404 for an unknown one.
  const loadState = async (threadId: string, checkpointId: string) => {
    const { checkpoint: cp, state } = await runGraphOf(deps).checkpointer.load(threadId, checkpointId);
    return { cp, state };
  };

  mountRoute(app, deps, registry, {
    method: 'get', path: '/api/v1/time-travel/history/:thread_id', summary: 'Checkpoints of a thread, newest first (without their state)', tags: ['time-travel'], auth: 'viewer',
    params: ThreadParams, query: ListQuery,
    responses: { 200: { description: 'checkpoints', schema: listResponse(CheckpointSummarySchema) }, 404: { description: 'no such thread' } },
  }, async ({ c, params, query, access }) => {
    const threadId = await owned(access.organizationId, params.thread_id);
    return c.json(await deps.store.checkpoints.list(threadId, { limit: query.limit, cursor: query.cursor }));
  });

  mountRoute(app, deps, registry, {
    method: 'get', path: '/api/v1/time-travel/state/:thread_id/:checkpoint_id', summary: 'The state at a checkpoint, with the writes that produced it', tags: ['time-travel'], auth: 'viewer',
    params: z.strictObject({ thread_id: z.string().min(1).max(200), checkpoint_id: z.string().min(1).max(100) }),
    responses: { 200: { description: 'state', schema: StateResponse }, 404: { description: 'no such thread or checkpoint' } },
  }, async ({ c, params, access }) => {
    const threadId = await owned(access.organizationId, params.thread_id);
    const { cp, state } = await loadState(threadId, params.checkpoint_id);
    const writes = await deps.store.checkpoints.writes(threadId, '', params.checkpoint_id);
    const { checkpoint: _blob, ...summary } = cp;
    return c.json({ ...summary, state, writes: writes.map(({ blob, ...w }) => ({ ...w, value: JSON.parse(Buffer.from(blob, 'base64').toString('utf8')) })) });
  });

  mountRoute(app, deps, registry, {
    method: 'post', path: '/api/v1/time-travel/replay', summary: 'Re-execute a thread from a checkpoint (e.g. resume a failed run from its failing step)', tags: ['time-travel'], auth: 'member', body: ReplayInput,
    responses: { 200: { description: 'replay started', schema: RunResponse }, 404: { description: 'no such thread or checkpoint' }, 409: { description: 'the thread is running' } },
  }, async ({ c, body, access }) => {
    const threadId = await owned(access.organizationId, body.thread_id);
    const run = await runGraphOf(deps).replay(access.organizationId, threadId, body.checkpoint_id);
    c.set('audit', { action: 'test_run.replay', resource: `test_run:${run.id}`, metadata: { thread_id: threadId, checkpoint_id: body.checkpoint_id } });
    return c.json({ run, thread_id: threadId, stream_url: `/stream/${encodeURIComponent(threadId)}` });
  });

  mountRoute(app, deps, registry, {
    method: 'post', path: '/api/v1/time-travel/fork', summary: 'Fork a thread at a checkpoint into a new run and thread, optionally with edited state', tags: ['time-travel'], auth: 'member', body: ForkInput,
    responses: { 201: { description: 'forked; the new run executes', schema: RunResponse }, 400: { description: 'the edited state is not valid' }, 404: { description: 'no such thread or checkpoint' } },
  }, async ({ c, body, access, principal }) => {
    const { run, threadId } = await runGraphOf(deps).fork(access.organizationId, userOf(principal), body.thread_id, body.checkpoint_id, body.state);
    c.set('audit', { action: 'test_run.fork', resource: `test_run:${run.id}`, metadata: { from_thread_id: body.thread_id, checkpoint_id: body.checkpoint_id, edited: Object.keys(body.state ?? {}) } });
    return c.json({ run, thread_id: threadId, stream_url: `/stream/${encodeURIComponent(threadId)}` }, 201);
  });

  mountRoute(app, deps, registry, {
    method: 'get', path: '/api/v1/time-travel/compare', summary: 'Diff the states at two checkpoints of a thread: added, removed, changed and unchanged fields', tags: ['time-travel'], auth: 'viewer', query: CompareQuery,
    responses: { 200: { description: 'diff', schema: StateDiffSchema }, 404: { description: 'no such thread or checkpoint' } },
  }, async ({ c, query, access }) => {
    const threadId = await owned(access.organizationId, query.thread_id);
    const [a, b] = await Promise.all([loadState(threadId, query.checkpoint_a), loadState(threadId, query.checkpoint_b)]);
    return c.json(diffStates(a.state, b.state));
  });
}
