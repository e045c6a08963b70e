import type { GraphDeps } from './deps.ts';
import type { RunGraphState } from './state.ts';

/**
 * The events every node sends: node_start, then node_end and the state after it
 * (state_update), plus logs. Appends are awaited so a stream sees them in order and a
 * crash never loses an event of a committed node without losing the node too.
 */
export function nodeEvents(deps: GraphDeps, threadId: string) {
  const now = () => deps.clock.now();
  return {
    async start(node: string, testId: string | null = null): Promise<number> {
      const t0 = now().getTime();
      await deps.events.append(threadId, { type: 'node_start', data: { node, timestamp: new Date(t0).toISOString(), test_id: testId } });
      return t0;
    },
    async end(node: string, t0: number, state: RunGraphState, testId: string | null = null): Promise<void> {
      const at = now();
      await deps.events.append(threadId, { type: 'node_end', data: { node, duration_ms: Math.max(0, at.getTime() - t0), test_id: testId, timestamp: at.toISOString() } });
      if (deps.stateUpdates !== false) await deps.events.append(threadId, { type: 'state_update', data: { state } });
    },
    async log(level: 'debug' | 'info' | 'warn' | 'error', message: string, testId: string | null = null): Promise<void> {
      await deps.events.append(threadId, { type: 'log', data: { level, message, test_id: testId } });
    },
  };
}

/** Why a node ended without finishing: the run was cancelled, the process running it stopped (a crash, a restart), or the run failed on an error. */
export type UnfinishedNode = 'cancelled' | 'interrupted' | 'failed';

/**
 * Ends the nodes a run left open: each node_start in the thread's log with no node_end
 * after it gets one now, with `status` saying why — so a client pairing starts and ends
 * never keeps a node "running" (found by QA: a cancel's in-flight tests, and a crashed
 * run's, which the resumed run starts again). Reads the log from its start, a page at a
 * time; called when nothing of the run executes any more (after a cancel has stopped it,
 * before a resumed run starts), it is the log that knows what was open, on every runtime.
 */
export async function endOpenNodes(deps: Pick<GraphDeps, 'events' | 'clock'>, threadId: string, status: UnfinishedNode): Promise<number> {
  const open = new Map<string, Array<{ node: string; test_id: string | null; started: number }>>();
  for (let after = 0; ; ) {
    const page = await deps.events.after(threadId, after, 50); // state_update events can be large: small pages
    if (!page.length) break;
    for (const e of page) {
      if (e.type !== 'node_start' && e.type !== 'node_end') continue;
      const node = String(e.data.node);
      const testId = typeof e.data.test_id === 'string' ? e.data.test_id : null;
      const key = JSON.stringify([node, testId]);
      const starts = open.get(key) ?? [];
      if (e.type === 'node_start') open.set(key, [...starts, { node, test_id: testId, started: Date.parse(String(e.data.timestamp)) }]);
      else open.set(key, starts.slice(0, -1));
    }
    after = page.at(-1)!.id;
  }
  const now = deps.clock.now();
  let ended = 0;
  for (const starts of open.values()) {
    for (const s of starts) {
      const duration = Number.isFinite(s.started) ? Math.max(0, now.getTime() - s.started) : 0;
      await deps.events.append(threadId, { type: 'node_end', data: { node: s.node, duration_ms: duration, test_id: s.test_id, timestamp: now.toISOString(), status } });
      ended++;
    }
  }
  return ended;
}
