import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createStore, type Store } from '@svc/core/store/index';
import { systemClock } from '@svc/core/ports/clock';
import { silentLogger } from '@svc/core/ports/logger';
import type { Healer } from '@svc/core/run-graph/healer';
import type { RunEvent } from '@svc/core/run-graph/events';
import type { UiDriver } from '@svc/core/execution/types';
import { FileTable } from '../../../packages/functions/src/local/file-table.ts';
import { createLocalRunGraph } from '../../../packages/functions/src/run-graph/setup.ts';
import type { RunManager } from '../../../packages/functions/src/run-graph/run-manager.ts';
import { apiTest, uiTest } from './target.ts';

/** The run graph in-process over a memory table: no HTTP, for node and interpreter tests. */
export async function startGraph(opts: { healer?: Healer; onCommit?: (ms: number) => void; browser?: () => Promise<UiDriver>; inStepHealing?: boolean; table?: FileTable } = {}) {
  const dataDir = await mkdtemp(join(tmpdir(), 'svc-graph-'));
  const table = opts.table ?? new FileTable();
  const store: Store = createStore(table, systemClock);
  const graph: RunManager = await createLocalRunGraph({ store, table, clock: systemClock, logger: silentLogger, dataDir, healer: opts.healer, onCommit: opts.onCommit, browser: opts.browser, ...(opts.inStepHealing && { healingKnowledge: {} }) });
  const orgId = crypto.randomUUID();
  return {
    store,
    table,
    graph,
    orgId,
    async project(appUrl: string, config: Record<string, unknown> = {}) {
      return store.projects.create(orgId, { name: 'p', app_url: appUrl, config });
    },
    async uiTest(projectId: string, selector: string) {
      return store.tests.create(orgId, { project_id: projectId, ...uiTest(`click ${selector}`, selector) });
    },
    async tests(projectId: string, paths: string[]) {
      const out = [];
      for (const [i, p] of paths.entries()) out.push(await store.tests.create(orgId, { project_id: projectId, ...apiTest(`test ${i + 1} ${p}`, p) }));
      return out;
    },
    /** Resolves when the thread's log has an event matching `pred`. */
    async waitForEvent(threadId: string, pred: (e: RunEvent) => boolean, timeoutMs = 20_000): Promise<RunEvent> {
      const deadline = Date.now() + timeoutMs;
      let after = 0;
      while (Date.now() < deadline) {
        for (const e of await graph.events.after(threadId, after, 500)) {
          after = e.id;
          if (pred(e)) return e;
        }
        await new Promise((r) => setTimeout(r, 20));
      }
      throw new Error(`no matching event on ${threadId} within ${timeoutMs} ms`);
    },
    async allEvents(threadId: string): Promise<RunEvent[]> {
      return graph.events.after(threadId, 0, 1000);
    },
    async stop() {
      await graph.close();
      await table.close?.();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

export type Graph = Awaited<ReturnType<typeof startGraph>>;
