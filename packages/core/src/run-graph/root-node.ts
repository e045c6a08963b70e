import { AppError } from '../errors.ts';
import type { GraphDeps } from './deps.ts';
import { runLimit } from './limits.ts';
import { nodeEvents } from './node-events.ts';
import type { RunGraphState } from './state.ts';
import type { Write } from './writes.ts';

export interface RootNodeOutcome {
  route: string;
  writes: (head: RunGraphState) => Write[];
  logs?: Array<{ level: 'info' | 'warn' | 'error'; message: string }>;
}

/**
 * Runs a one-shot node (analyze_code, plan_tests) exactly once per thread: a resumed
 * execution gets the route the node took, from the checkpoint, without running it again.
 * A run-level limit routes straight to report.
 */
export async function runRootNode(deps: GraphDeps, threadId: string, node: string, body: (state: RunGraphState) => Promise<RootNodeOutcome>): Promise<{ route: string; state: RunGraphState }> {
  const { state } = await deps.checkpointer.load(threadId);
  const done = state.graph.routes[node];
  if (done) return { route: done, state };
  if (deps.signal(threadId).aborted) throw new AppError('CONFLICT', 'the run was cancelled');
  const ev = nodeEvents(deps, threadId);
  const limit = runLimit(state, node, null, deps.clock.now().toISOString());
  if (limit) {
    const committed = await deps.checkpointer.commit(threadId, { node, writes: () => [{ channel: 'limit', value: { ...limit, stop: true } }, { channel: 'route', value: { node, route: 'report' } }] });
    await ev.log('warn', limit.message);
    return { route: 'report', state: committed.state };
  }
  const t0 = await ev.start(node);
  let outcome: RootNodeOutcome;
  try {
    outcome = await body(state);
  } catch (err) {
    // An error in a node sends the run to report (spec: "no surfaces, or error → report").
    const message = `${node} failed: ${(err as Error).message}`;
    outcome = { route: 'report', writes: () => [{ channel: 'replace', field: 'error', value: message }], logs: [{ level: 'error', message }] };
  }
  const committed = await deps.checkpointer.commit(threadId, {
    node,
    writes: (head) => [...outcome.writes(head), { channel: 'root_step', value: outcome.route }, { channel: 'route', value: { node, route: outcome.route } }],
    metadata: { route: outcome.route },
  });
  for (const l of outcome.logs ?? []) await ev.log(l.level, l.message);
  await ev.end(node, t0, committed.state);
  return { route: outcome.route, state: committed.state };
}
