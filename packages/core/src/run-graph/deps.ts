import type { Store } from '../store/index.ts';
import type { Clock } from '../ports/clock.ts';
import type { Logger } from '../ports/logger.ts';
import type { TestRunDeps } from '../execution/run-test.ts';
import type { ArtifactSink } from '../execution/types.ts';
import type { Checkpointer } from './checkpointer.ts';
import type { EventLog } from './event-log.ts';
import type { Healer } from './healer.ts';
import type { ThreadsRepo } from './threads.ts';
import type { ApprovalsRepo } from './approvals-repo.ts';
import type { TestExtras } from './spec-to-definition.ts';
import type { CodeAnalyzer } from './code-analyzer.ts';
import type { EventPublisher } from '../ports/events.ts';

/** Artifacts of a run; `read` lets screenshot events carry the image itself. */
export interface RunArtifacts extends ArtifactSink {
  read?(key: string): Promise<Uint8Array | undefined>;
}

/** What executing a run's tests needs, built per run by the entry point (browser, SQL, HTTP). */
export type ExecutionEnv = Omit<TestRunDeps, 'signal' | 'onStep' | 'log' | 'artifacts' | 'baseUrl'> & { artifacts: RunArtifacts };

/** Everything the graph's nodes use. Adapters (functions) build it once per process. */
export interface GraphDeps {
  store: Store;
  checkpointer: Checkpointer;
  events: EventLog;
  threads: ThreadsRepo;
  approvals: ApprovalsRepo;
  clock: Clock;
  logger: Logger;
  /** The self-healer; absent → every heal answers "cannot heal: no healer is configured". */
  healer?: Healer;
  /** Reads and analyses a run's codebase for analyze_code; absent → the stored tests are the only surfaces. */
  analyzer?: CodeAnalyzer;
  /** Domain events of the nodes (codebase.analyzed); absent → none are published. */
  publisher?: EventPublisher;
  /** Called once a run has planned its tests, before running them (a webhook run's pending commit status); must not throw. */
  runStarted?(organizationId: string, runId: string, plannedTests: number): Promise<void>;
  /** Called once a run is final (notification channels, docs/notifications.md; commit statuses, docs/vcs-webhooks.md); must not throw. */
  runFinished?(organizationId: string, runId: string): Promise<void>;
  /** Execution resources for a run (one browser per run, closed by the run manager). */
  execution(run: { threadId: string; organizationId: string; projectId: string }): Promise<ExecutionEnv>;
  /** Aborted when the run is cancelled: in-flight tests stop and close their browser. */
  signal(threadId: string): AbortSignal;
  /** Per-test timeout and parameters the stored test does not carry (tests run from files by the CLI). */
  testExtras?(testId: string): TestExtras | undefined;
  /** Delivers an approval decision to the waiting workflow (SendTaskSuccess on AWS). */
  sendTaskSuccess(token: string, output: Record<string, unknown>): Promise<void>;
  /**
   * Whether every node's end also appends a state_update event carrying the whole state
   * (default true: SSE clients follow a run with them). `svc run` has no SSE clients, and
   * a full-state event per test made its event log grow with the square of the run's size.
   */
  stateUpdates?: boolean;
}
