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
