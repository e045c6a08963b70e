import { join } from 'node:path';
import { uuidv7 } from '@svc/core/ids';
import { runTest } from '@svc/core/execution/run-test';
import { redactSecrets } from '@svc/core/execution/variables';
import type { TestDefinition } from '@svc/core/contracts/steps';
import type { HttpExchange, SqlDriver, TestExecutionResult, UiDriver } from '@svc/core/execution/types';
import type { Store } from '@svc/core/store/index';
import type { Fingerprint } from '@svc/core/contracts/fingerprint';
import { runScopedBaselineStore } from '@svc/core/visual/run-scoped-baselines';
import { createExecutionEnvs } from '../run-graph/execution-env.ts';
import { recordFinalPage, type FinalPageRequest } from './final-page.ts';
import type { ActFinalPage } from '@svc/core/contracts/act';

/** A run's result, with the page it ended on when that was asked for. */
export type GenerationRunResult = TestExecutionResult & { final_page?: ActFinalPage };

/** Runs a freshly generated test once, server-side, to decide whether it may be kept as passing. */
export interface GenerationExecutor {
  /** false when no browser is configured: UI tests cannot be executed here. */
  readonly browser: boolean;
  /**
   * Runs one test; with `batch` (from batch()), tests of one request share one browser.
   * With `finalPage`, the result also says which page the run ended on (POST /api/act).
   */
  run(test: TestDefinition, where: { organizationId: string; projectId: string; baseUrl?: string; signal?: AbortSignal; batch?: string; finalPage?: FinalPageRequest; settle?: { quietMs: number; maxMs: number } }): Promise<GenerationRunResult>;
  /**
   * Fingerprints of the visible elements of one page (for a model rewriting sentences, so
   * it uses the page's own names). Opens the page in a fresh context of the batch's browser.
   */
  inspect(url: string, where: { organizationId: string; projectId: string; batch: string }): Promise<Fingerprint[]>;
  /** A batch id for several run() calls; pass it to release() when done (closes the browser). */
  batch(): string;
  release(batch: string): Promise<void>;
  close(): Promise<void>;
}

/** Opening a page just to list its elements: a slow page is not worth more than this. */
const INSPECT_TIMEOUT_MS = 15_000;

export interface GenerationExecutorOptions {
  store: Store;
  /** Artifacts (screenshots, traces) of generation runs go under <dataDir>/artifacts/generation/. */
  dataDir: string;
  browser?: () => Promise<UiDriver>;
  sql?: SqlDriver;
  http?: HttpExchange;
}

/**
 * The run graph's execution environment (createExecutionEnvs: one lazily launched
 * browser, HTTP, SQL with the project's environment) and the same runner (runTest) the
 * execute_test node uses — one "thread" per generation run, released (browser closed)
 * as soon as the test finishes, so no Chromium outlives a request.
 */
export function createGenerationExecutor(o: GenerationExecutorOptions): GenerationExecutor {
  const envs = createExecutionEnvs({ store: o.store, artifactsDir: join(o.dataDir, 'artifacts', 'generation'), browser: o.browser, sql: o.sql, http: o.http, traceOnFailure: false });
  return {
    browser: o.browser !== undefined,
    async run(test, where) {
      const threadId = where.batch ?? `generation-${uuidv7()}`;
      try {
        const env = await envs.forRun({ threadId, organizationId: where.organizationId, projectId: where.projectId });
        const final = where.finalPage && env.ui ? recordFinalPage(where.finalPage) : undefined;
        // No fingerprints: a generated test has no identity yet, and its elements are not to be
        // healed towards. Its visual assertions record into a store that ends with this run.
        const result = await runTest(`generated:${threadId}`, test, { ...env, ...(final && env.ui && { ui: final.wrap(env.ui) }), fingerprints: undefined, baselines: runScopedBaselineStore(), baselineMode: 'missing', baseUrl: where.baseUrl, signal: where.signal, ...(where.settle && { settle: where.settle }) });
        // Masked as the result is (found by QA: POST /api/act and /api/extract answered the
        // final URL and title with a project secret the steps put there, in plain text).
        return final?.page ? { ...result, final_page: maskedPage(final.page, env.secrets) } : result;
      } finally {
        if (!where.batch) await envs.release(threadId);
      }
    },
    async inspect(url, where) {
      const env = await envs.forRun({ threadId: where.batch, organizationId: where.organizationId, projectId: where.projectId });
      if (!env.ui) throw new Error('no browser is configured on this server');
      const session = await (await env.ui()).openSession({ trace: false });
      try {
        const ctx = { signal: AbortSignal.timeout(INSPECT_TIMEOUT_MS), deadline: Date.now() + INSPECT_TIMEOUT_MS, log: () => undefined };
        await session.perform({ type: 'goto', url }, ctx);
        return await session.pageFingerprints();
      } finally {
        await session.close();
      }
    },
    batch: () => `generation-batch-${uuidv7()}`,
    release: (batch) => envs.release(batch),
    async close() {
      await Promise.all(envs.held().map((t) => envs.release(t)));
    },
  };
}

/** The final page with the run's secrets masked in its URL, title and text snapshot (the screenshot's pixels cannot be). */
function maskedPage(page: ActFinalPage, secrets: Record<string, string>): ActFinalPage {
  const mask = (text: string) => redactSecrets(text, secrets);
  return { ...page, url: mask(page.url), title: page.title === null ? null : mask(page.title), ...(page.snapshot && { snapshot: { ...page.snapshot, text: mask(page.snapshot.text) } }) };
}
