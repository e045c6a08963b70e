import type { Logger } from '@svc/core/ports/logger';

/**
 * Calls `tick` every `intervalMs`, one at a time (a slow pass is not overlapped by the
 * next), until stopped; stop waits for a pass in progress. The local runtime's stand-in
 * for the per-minute schedule that sweeps due scheduled runs on AWS.
 */
export function startTicker(intervalMs: number, tick: () => Promise<unknown>, logger: Logger): { stop(): Promise<void> } {
  let running: Promise<unknown> | undefined;
  let stopped = false;
  const timer = setInterval(() => {
    if (running || stopped) return;
    running = tick()
      .catch((err: unknown) => logger.error('a scheduled pass failed', { error: (err as Error).message }))
      .finally(() => {
        running = undefined;
      });
  }, intervalMs);
  timer.unref();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
