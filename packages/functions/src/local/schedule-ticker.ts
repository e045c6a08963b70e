import type { Logger } from '@svc/core/ports/logger';

/**
 * Calls `tick` every `intervalMs` (the first time after `firstAfterMs`, by default one
 * interval), one at a time (a slow pass is not overlapped by the next), until stopped;
 * stop waits for a pass in progress. The local runtime's stand-in for the schedules that
 * sweep due scheduled runs (every minute) and old visual images (daily) on AWS.
 */
export function startTicker(intervalMs: number, tick: () => Promise<unknown>, logger: Logger, firstAfterMs = intervalMs): { stop(): Promise<void> } {
  let running: Promise<unknown> | undefined;
  let stopped = false;
  let interval: NodeJS.Timeout | undefined;
  const pass = () => {
    if (running || stopped) return;
    running = tick()
      .catch((err: unknown) => logger.error('a scheduled pass failed', { error: (err as Error).message }))
      .finally(() => {
        running = undefined;
      });
  };
  const first = setTimeout(() => {
    pass();
    if (stopped) return;
    interval = setInterval(pass, intervalMs);
    interval.unref();
  }, firstAfterMs);
  first.unref();
  return {
    async stop() {
      stopped = true;
      clearTimeout(first);
      clearInterval(interval);
      await running;
    },
  };
}
