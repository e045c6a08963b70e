import type { LlmClient } from '@svc/core/llm/types';
import { join } from 'node:path';
import type { Store } from '@svc/core/store/index';
import type { Table } from '@svc/core/ports/table';
import type { Clock } from '@svc/core/ports/clock';
import type { Blobs } from '@svc/core/ports/blobs';
import { blobArtifacts } from './blob-artifacts.ts';
import { storeBaselineStore } from '@svc/core/store/baseline-store';
import type { Logger } from '@svc/core/ports/logger';
import type { Healer } from '@svc/core/run-graph/healer';
import type { HttpExchange, SqlDriver, UiDriver } from '@svc/core/execution/types';
import { createExecutionEnvs, extractModelOf } from './execution-env.ts';
import { createRunManager, type RunManager } from './run-manager.ts';
import { createDomHealer, projectHealingSettingsIn, revertedFixesIn } from './dom-healer.ts';
import type { EventPublisher } from '@svc/core/ports/events';
import { localEmbedder, type Embedder } from '@svc/core/healing/service/embedder';
import { serverStepHealer } from './server-step-healer.ts';
import { createRepositoryAnalyzer } from './repository-analyzer.ts';
import { withIngestedKnowledge } from '@svc/core/knowledge/ingested-analyzer';

export interface LocalRunGraphOptions {
  store: Store;
  table: Table;
  clock: Clock;
  logger: Logger;
  /** Run artifacts go under <dataDir>/artifacts/runs/<thread_id>/. */
  dataDir: string;
  /** Where visual baseline images are kept (records in the store); absent → visual assertions fail with 'configuration'. */
  blobs?: Blobs;
  /** Opens a browser for a run's UI tests (createPlaywrightDriver), given the run; absent → UI tests fail with a clear error. */
  browser?: (run?: { threadId: string; organizationId: string; projectId: string }) => Promise<UiDriver>;
  sql?: SqlDriver;
  http?: HttpExchange;
  /** The self_heal node's healer; default the DOM healer (createDomHealer) on the run's own browser. */
  healer?: Healer;
  /**
   * In-step healing with the store's healing knowledge (patterns, cache, memory) for every
   * run that allows it (serverStepHealer; embedder default the local one); absent → no
   * in-step healing, the self_heal node heals.
   */
  healingKnowledge?: { embedder?: Embedder; llm?: LlmClient };
  /** Domain events of the run (codebase.analyzed, healing.completed); absent → none. */
  publisher?: EventPublisher;
  /** Folders analyze_code may read a run's codebase from (SVC_ANALYZE_ROOTS); absent → no code analysis. */
  analyzeRoots?: string[];
  /** Where people reach this svc (SVC_PUBLIC_URL): commit statuses link to run reports there; absent → no link. */
  publicUrl?: string;
  /** Start unfinished runs again from their last checkpoint (default true). */
  resume?: boolean;
  onCommit?: (ms: number) => void;
}

/**
 * The run graph for the local runtime: call once after the store is open; mount the
 * routes with `runGraphRoutes(app, { ...deps, runGraph }, registry)`; `close()` on
 * shutdown (runs are not cancelled: they resume at the next start).
 */
export async function createLocalRunGraph(o: LocalRunGraphOptions): Promise<RunManager> {
  const stepHealer = o.healingKnowledge ? serverStepHealer({ store: o.store, clock: o.clock, embedder: o.healingKnowledge.embedder ?? localEmbedder(), publisher: o.publisher, llm: o.healingKnowledge.llm }) : undefined;
  const envs = createExecutionEnvs({
    store: o.store,
    artifactsDir: join(o.dataDir, 'artifacts', 'runs'),
    // With a blob store, run artifacts go there as on AWS (runs/<thread>/…), so the API can
    // embed a run's screenshots in its HTML report.
    ...(o.blobs ? { artifacts: (threadId: string) => blobArtifacts(o.blobs!, threadId) } : {}),
    http: o.http,
    sql: o.sql,
    browser: o.browser,
    stepHealer,
    // Extract steps with an instruction ask the same model as healing does.
    extractModel: extractModelOf(o.healingKnowledge?.llm),
    ...(o.blobs ? { baselines: (run: { organizationId: string; projectId: string }) => storeBaselineStore(o.store, o.blobs!, run.organizationId, run.projectId) } : {}),
  });
  const healer = o.healer ?? createDomHealer({ execution: (run) => envs.forRun(run), reverted: revertedFixesIn(o.store), settings: projectHealingSettingsIn(o.store) });
  // The run's codebase when it lies in SVC_ANALYZE_ROOTS, else what the knowledge worker kept of the project's.
  const live = o.analyzeRoots ? createRepositoryAnalyzer({ store: o.store, roots: o.analyzeRoots }) : undefined;
  const analyzer = withIngestedKnowledge({ store: o.store, blobs: o.blobs, live });
  const manager = createRunManager({ store: o.store, table: o.table, clock: o.clock, logger: o.logger, envs, healer, analyzer, publisher: o.publisher, onCommit: o.onCommit, publicUrl: o.publicUrl });
  if (o.resume !== false) await manager.resumeUnfinished();
  return manager;
}
