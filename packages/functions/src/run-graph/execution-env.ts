import { join } from 'node:path';
import type { ExecutionEnv, RunArtifacts } from '@svc/core/run-graph/deps';
import type { HttpExchange, SqlDriver, UiDriver } from '@svc/core/execution/types';
import type { ProjectEnvironment, Store } from '@svc/core/store/index';
import { safeHttpExchange } from '../net/metadata-safe-fetch.ts';
import { FsArtifacts } from '../execution/fs-artifacts.ts';
import { tableFingerprintStore } from '@svc/core/store/fingerprints';
import { caseBaselines } from '@svc/core/visual/case-baselines';
import type { FingerprintStore } from '@svc/core/execution/fingerprint-store';
import type { StepHealer } from '@svc/core/execution/step-healer';
import type { BaselineStore } from '@svc/core/visual/baseline-store';
import { fileSafe } from '@svc/core/file-safe';
import type { LlmClient } from '@svc/core/llm/types';
import type { ExtractModel } from '@svc/core/execution/extract/ask-model';

export interface ExecutionEnvOptions {
  store: Store;
  /** Artifacts of thread T go under <artifactsDir>/<T>/. */
  artifactsDir: string;
  http?: HttpExchange;
  sql?: SqlDriver;
  /**
   * Opens a browser (one per run, launched on the run's first UI step). It is given the
   * run, so an entry point can bind per-run ports, e.g. the vision fallback's model,
   * whose usage is paid by the run's organization (llm/vision-locator.ts).
   */
  browser?: (run?: { threadId: string; organizationId: string; projectId: string }) => Promise<UiDriver>;
  /** Environment variables and secrets for every run (the CLI's); default: the project's config.environment, no secrets. */
  environment?: Record<string, string>;
  secrets?: Record<string, string>;
  /** Where a run's artifacts go (default: files under artifactsDir). */
  artifacts?: (threadId: string) => RunArtifacts;
  /** Where step fingerprints are kept (default: the store's table, per organization). svc run: files in --state-dir. */
  fingerprints?: FingerprintStore;
  /**
   * The in-step locator healer of a run, built once per run: svc run's StepHealer, or on
   * the server serverStepHealer (the store's patterns, cache and memory for the run's
   * project). Undefined, or absent → none: the self_heal node heals.
   */
  stepHealer?: (run: { threadId: string; organizationId: string; projectId: string }) => StepHealer | undefined | Promise<StepHealer | undefined>;
  /** Keep a Playwright trace of failed UI tests (default true). */
  traceOnFailure?: boolean;
  /** Visual baselines of a run's organization (server: the store and blobs; svc run: files). Absent: visual assertions fail with 'configuration'. */
  baselines?: (run: { organizationId: string; projectId: string }) => BaselineStore;
  /** The model a run's extract steps with an instruction ask (extractModelOf); absent → those steps fail with NO_MODEL. */
  extractModel?: (run: { threadId: string; organizationId: string }) => ExtractModel | undefined;
}

/** A server's model for extract steps, each run's calls paid by its organization and counted against its run budget. */
export const extractModelOf = (llm: LlmClient | undefined) => (run: { threadId: string; organizationId: string }): ExtractModel | undefined =>
  llm?.configured ? { llm, context: { organizationId: run.organizationId, runId: run.threadId } } : undefined;

/**
 * Execution resources per run: HTTP, SQL, a folder for artifacts and — lazily — one
 * browser, closed when the run ends or is cancelled (no Chromium outlives its run).
 * A server run reads the project's environment variables and secrets (the CLI passes its own).
 */
export function createExecutionEnvs(o: ExecutionEnvOptions) {
  const runs = new Map<string, { env: ExecutionEnv; browser?: Promise<UiDriver> }>();

  return {
    async forRun(run: { threadId: string; organizationId: string; projectId: string }): Promise<ExecutionEnv> {
      const existing = runs.get(run.threadId);
      if (existing) return existing.env;
      // svc run passes its own (SVC_SECRET_*, --env-file); then the store has nothing to add.
      const { environment, secrets } = o.environment && o.secrets ? { environment: o.environment, secrets: o.secrets } : await projectEnvironment(o.store, run.organizationId, run.projectId);
      const healer = o.stepHealer ? await o.stepHealer(run) : undefined;
      const entry: { env: ExecutionEnv; browser?: Promise<UiDriver> } = {
        env: {
          http: o.http ?? safeHttpExchange,
          sql: o.sql,
          artifacts: o.artifacts ? o.artifacts(run.threadId) : new FsArtifacts(join(o.artifactsDir, fileSafe(run.threadId))),
          environment: o.environment ?? environment,
          secrets: o.secrets ?? secrets,
          // Keep each step's element fingerprint for healing in later runs.
          fingerprints: o.fingerprints ?? tableFingerprintStore(o.store.table, run.organizationId),
          ...(healer ? { healer } : {}),
          ...(o.traceOnFailure !== undefined ? { traceOnFailure: o.traceOnFailure } : {}),
          // A parameter set's case keeps baselines of its own, under its test (visual/case-baselines.ts).
          ...(o.baselines ? { baselines: caseBaselines(o.baselines(run)) } : {}),
          ...(o.extractModel?.(run) && { extractModel: o.extractModel(run) }),
        },
      };
      if (o.browser) {
        const open = o.browser;
        entry.env.ui = () => (entry.browser ??= open(run));
      }
      // Parallel tests of one run may both get here: the first env wins (ours has opened nothing yet).
      const raced = runs.get(run.threadId);
      if (raced) return raced.env;
      runs.set(run.threadId, entry);
      return entry.env;
    },

    /** Closes the run's browser (if it opened one) and forgets the run. */
    async release(threadId: string): Promise<void> {
      const entry = runs.get(threadId);
      runs.delete(threadId);
      if (entry?.browser) await (await entry.browser.catch(() => undefined))?.close();
    },

    /** Threads holding resources (an open browser) right now. */
    held(): string[] {
      return [...runs.keys()];
    },
  };
}

export type ExecutionEnvs = ReturnType<typeof createExecutionEnvs>;

/**
 * The project's variables and secrets as a run sees them: those set through
 * /api/v1/projects/{id}/environment, over the string values of the project's
 * `config.environment` (how variables were given before that API existed).
 */
async function projectEnvironment(store: Store, orgId: string, projectId: string): Promise<ProjectEnvironment> {
  const [project, stored] = await Promise.all([store.projects.get(orgId, projectId), store.environment.resolve(orgId, projectId)]);
  const configured = (project?.config as { environment?: unknown } | undefined)?.environment;
  const legacy = configured && typeof configured === 'object' ? (Object.fromEntries(Object.entries(configured).filter(([, v]) => typeof v === 'string')) as Record<string, string>) : {};
  for (const name of Object.keys(stored.secrets)) delete legacy[name]; // a secret set since replaces a plain value of that name
  return { environment: { ...legacy, ...stored.environment }, secrets: stored.secrets };
}
