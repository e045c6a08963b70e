import { startTestServer, type TestServer } from '../../support/server.ts';
import { createLocalRunGraph } from '../../../packages/functions/src/run-graph/setup.ts';
import type { RunManager } from '../../../packages/functions/src/run-graph/run-manager.ts';
import { runGraphRoutes } from '../../../packages/functions/src/api/routes/runs.ts';
import type { SseOptions } from '../../../packages/functions/src/run-graph/sse.ts';
import type { Healer } from '@svc/core/run-graph/healer';
import type { UiDriver } from '@svc/core/execution/types';

/**
 * The real local runtime with the run graph wired in the way the lead wires it into
 * app.ts and runtime.ts: createLocalRunGraph over the runtime's store, and
 * runGraphRoutes mounted on its app before the first request.
 */
export async function startRunGraphServer(opts: { dataDir?: string; healer?: Healer; browser?: () => Promise<UiDriver>; stream?: Partial<SseOptions> } = {}): Promise<TestServer & { graph: RunManager }> {
  const server = await startTestServer({ dataDir: opts.dataDir });
  const { deps, app } = server.runtime;
  const graph = await createLocalRunGraph({ store: deps.store, table: deps.store.table, clock: deps.clock, logger: deps.logger, dataDir: server.dataDir, healer: opts.healer, browser: opts.browser });
  runGraphRoutes(app, { ...deps, runGraph: graph, runGraphStream: opts.stream } as never, app.routes);
  return {
    ...server,
    graph,
    async stop() {
      await graph.close();
      await server.stop();
    },
  };
}
