import { withScopedThread } from '@svc/core/run-graph/thread-names';
import { z } from 'zod';
import type { Context, Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import { notFound, validationFailed } from '@svc/core/errors';
import { isTerminalRunStatus, TestRunSchema } from '@svc/core/contracts/test-run';
import { roleAtLeast } from '@svc/core/auth/index';
import { RunStartInput, RunStatusSchema } from '@svc/core/run-graph/contracts';
import type { ApiEnv } from '../env.ts';
import { mountRoute, type RouteDef } from '../route.ts';
import { pumpEvents, type SseOptions } from '../../run-graph/sse.ts';
import type { RunManager } from '../../run-graph/run-manager.ts';
import { runGraphOf, userOf, type RunGraphAppDeps } from './runs.ts';

/** AppDeps with the run graph and, optionally, stream settings (Lambda: maxStreamMs below the function's limit). */
export type StreamAppDeps = RunGraphAppDeps & { runGraphStream?: Partial<SseOptions> };

const ThreadParams = z.strictObject({ thread_id: z.string().min(1).max(200).describe('Execution thread id') });
const SseResponse = { description: 'text/event-stream: state_update, node_start, node_end, log, screenshot, interrupt, resume, tool_call, complete, error; every event has an id (resume with Last-Event-ID)' };
const NothingMore = { description: 'A reconnect (Last-Event-ID) after the last event of a run that has ended: nothing more will come, and an EventSource stops reconnecting' };
const ResumeBody = z.strictObject({ last_event_id: z.number().int().nonnegative().optional().describe('Resume after this event id (default: the Last-Event-ID header, else 0)') });
const LastEventQuery = z.strictObject({ last_event_id: z.coerce.number().int().nonnegative().optional().describe('Fallback for clients that cannot send the Last-Event-ID header') });

/** Streaming (spec: server-sent events): start-and-stream, reattach, status, cancel. */
export function streamRoutes(app: Hono<ApiEnv>, deps: StreamAppDeps, registry: RouteDef[]) {
  const sse = async (c: Context<ApiEnv>, g: RunManager, orgId: string, threadId: string, afterId: number, headers: Record<string, string> = {}) => {
    for (const [k, v] of Object.entries(headers)) c.header(k, v);
    const isFinished = async () => {
      const { run } = await g.runs.resolve(orgId, threadId);
      return isTerminalRunStatus(run.status) && !(await g.isActive(threadId));
    };
    // A reconnect past the last event of a run that has ended: 204 No Content, which tells an
    // EventSource to stop reconnecting (the HTML standard). A 200 that ended at once had a
    // browser reconnect every retry interval for as long as the page stayed open (noted by QA).
    if (afterId > 0 && afterId >= (await g.events.lastId(threadId)) && (await isFinished())) return c.body(null, 204);
    c.header('X-Accel-Buffering', 'no');
    return streamSSE(c, async (stream) => {
      const result = await pumpEvents(stream, { events: g.events, threadId, afterId, options: deps.runGraphStream, isFinished });
      // A client that stopped reading: drop the connection itself, or the socket (and what
      // is buffered for it) would linger until the client reads or the OS gives up.
      if (result.reason === 'slow_client') (c.env as { outgoing?: { destroy(): void } } | undefined)?.outgoing?.destroy();
    });
  };

  mountRoute(app, deps, registry, {
    method: 'post', path: '/api/v1/stream/test', summary: 'Start a run and stream its execution as server-sent events', tags: ['stream'], auth: 'member', body: RunStartInput,
    responses: { 200: SseResponse, 404: { description: 'no such project or test' } },
  }, async ({ c, body, access, principal }) => {
    const g = runGraphOf(deps);
    const { run, threadId } = await g.start(access.organizationId, userOf(principal), withScopedThread(access.organizationId, body));
    c.set('audit', { action: 'test_run.start', resource: `test_run:${run.id}`, metadata: { project_id: run.project_id, thread_id: threadId, stream: true } });
    return sse(c, g, access.organizationId, threadId, 0, { 'X-Thread-ID': threadId, 'X-Run-ID': run.id });
  });

  // The spec's gateway family (/api/stream/*) and the short path the run's stream_url gives.
  for (const path of ['/stream/:session_id', '/api/stream/:session_id']) mountRoute(app, deps, registry, {
    method: 'get', path, summary: 'Event stream of a run session (the thread), resumable with Last-Event-ID', tags: ['stream'], auth: 'user',
    params: z.strictObject({ session_id: z.string().min(1).max(200).describe('Session id: the run\'s thread id') }), query: LastEventQuery,
    responses: { 200: SseResponse, 204: NothingMore, 404: { description: 'no such session' } },
  }, async ({ c, params, query, principal }) => {
    const g = runGraphOf(deps);
    // EventSource sends no custom headers: the organization is the thread's, if the caller is a member.
    // A name the organization chose (thread-names.ts) is found with its X-Organization-ID, when sent.
    const org = c.req.header('x-organization-id')?.toLowerCase();
    const named = org && /^[0-9a-f-]{36}$/.test(org) ? await g.deps.threads.ownedBy(org, params.session_id) : undefined;
    let threadId = named?.threadId ?? params.session_id;
    let owner = named?.owner ?? (await g.deps.threads.owner(threadId));
    if (!owner && principal && (org || principal.kind === 'apiKey')) {
      // Not a thread: a run's id, as the status route takes it (a run on a named thread has a
      // thread id of its own), looked up in the caller's organization (found by QA: a 404).
      const mine = await deps.identity.access(principal, org).catch(() => undefined);
      const resolved = mine ? await g.runs.resolve(mine.organizationId, params.session_id).catch(() => undefined) : undefined;
      if (resolved) {
        threadId = resolved.threadId;
        owner = await g.deps.threads.owner(threadId);
      }
    }
    if (!owner) throw notFound('session');
    const access = await deps.identity.access(principal, owner.organization_id).catch(() => {
      throw notFound('session');
    });
    if (!roleAtLeast(access.role, 'viewer')) throw notFound('session');
    return sse(c, g, owner.organization_id, threadId, lastEventId(c, query.last_event_id));
  });

  mountRoute(app, deps, registry, {
    method: 'get', path: '/api/v1/stream/status/:thread_id', summary: 'Stream status of a thread: run status, last event id, clients attached', tags: ['stream'], auth: 'viewer', params: ThreadParams,
    responses: { 200: { description: 'status', schema: RunStatusSchema.extend({ stream: z.object({ last_event_id: z.number().int(), clients: z.number().int() }) }) }, 404: { description: 'no such thread' } },
  }, async ({ c, params, access }) => {
    const g = runGraphOf(deps);
    const { threadId } = await g.runs.resolve(access.organizationId, params.thread_id);
    const status = await g.runs.status(access.organizationId, threadId, (await g.isActive(threadId)));
    return c.json({ ...status, stream: { last_event_id: status.last_event_id, clients: g.events.watcherCount(threadId) } });
  });

  mountRoute(app, deps, registry, {
    method: 'post', path: '/api/v1/stream/resume/:thread_id', summary: 'Reattach to a run\'s stream after Last-Event-ID; an unfinished run with no execution running resumes from its last checkpoint', tags: ['stream'], auth: 'member',
    params: ThreadParams, body: ResumeBody,
    responses: { 200: SseResponse, 204: NothingMore, 404: { description: 'no such thread' } },
  }, async ({ c, params, body, access }) => {
    const g = runGraphOf(deps);
    const { threadId, run, resumed } = await g.resume(access.organizationId, params.thread_id);
    if (resumed) c.set('audit', { action: 'test_run.resume', resource: `test_run:${run.id}`, metadata: { thread_id: threadId } });
    return sse(c, g, access.organizationId, threadId, lastEventId(c, body.last_event_id), { 'X-Thread-ID': threadId, 'X-Run-ID': run.id });
  });

  mountRoute(app, deps, registry, {
    method: 'delete', path: '/api/v1/stream/cancel/:id', summary: 'Cancel a streamed run (id: thread id or run id); open streams end with a complete event', tags: ['stream'], auth: 'member',
    params: z.strictObject({ id: z.string().min(1).max(200) }),
    responses: { 200: { description: 'cancelled', schema: TestRunSchema }, 404: { description: 'no such run' }, 409: { description: 'already finished' } },
  }, async ({ c, params, access, principal }) => {
    const run = await runGraphOf(deps).cancel(access.organizationId, params.id, userOf(principal));
    c.set('audit', { action: 'test_run.cancel', resource: `test_run:${run.id}` });
    return c.json(run);
  });
}

/** Last-Event-ID header (standard), else the query/body fallback; a malformed header is a 400. */
function lastEventId(c: Context<ApiEnv>, fallback?: number): number {
  const header = c.req.header('last-event-id');
  if (header !== undefined && header.trim() !== '') {
    const n = Number(header.trim());
    if (!Number.isInteger(n) || n < 0) throw validationFailed([{ path: 'Last-Event-ID', message: 'must be a non-negative integer event id' }]);
    return n;
  }
  return fallback ?? 0;
}
