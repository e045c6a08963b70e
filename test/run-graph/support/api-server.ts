import { startTestServer, type TestServer } from '../../support/server.ts';
import type { RunManager } from '../../../packages/functions/src/run-graph/run-manager.ts';
import type { SseOptions } from '../../../packages/functions/src/run-graph/sse.ts';
import type { Healer } from '@svc/core/run-graph/healer';
import type { UiDriver } from '@svc/core/execution/types';

/** The real local runtime, whose run graph gets the given healer, browser and stream limits. */
export async function startRunGraphServer(opts: { dataDir?: string; healer?: Healer; browser?: () => Promise<UiDriver>; stream?: Partial<SseOptions>; env?: Record<string, string> } = {}): Promise<TestServer & { graph: RunManager }> {
  const server = await startTestServer({ dataDir: opts.dataDir, env: opts.env, runtime: { runGraph: { healer: opts.healer, browser: opts.browser, stream: opts.stream } } });
  return { ...server, graph: server.runtime.deps.runGraph! };
}
