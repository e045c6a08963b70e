import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { loadTraceViewerAsset, loadWebAsset } from '@svc/web';
import { createApp, type SvcApp } from '../api/app.ts';
import { defaultApiConfig, type AppDeps } from '../api/deps.ts';
import { buildAppDeps } from '../shared/deps.ts';
import { dataLayerChecks, knowledgeLayerCheck } from '../shared/health-checks.ts';
import { createLogger } from '../shared/logger.ts';
import { FileTable } from './file-table.ts';
import { FsBlobs } from './fs-blobs.ts';
import { createLocalRunGraph } from '../run-graph/setup.ts';
import { embedderFromEnv } from '../embeddings/from-env.ts';
import type { UiDriver } from '@svc/core/execution/types';
import type { PlaywrightDriver } from '../execution/browser/playwright-driver.ts';
import type { Healer } from '@svc/core/run-graph/healer';
import type { SseOptions } from '../run-graph/sse.ts';
import { createLocalEvents, type LocalEvents } from '../events/local-events.ts';
import { readAllowedFolder } from '../intelligence/read-allowed-folder.ts';
import { requeueIngestions } from '@svc/core/knowledge/requeue';
import { activeBrowserSessions } from '../execution/browser/active-sessions.ts';
import type { LocalEventBus } from '../events/local-bus.ts';
import { scheduleService } from '@svc/core/services/schedules';
import { ensureFirstAdmin, type FirstAdmin } from './bootstrap.ts';
import { startTicker } from './schedule-ticker.ts';
import { housekeeping as sweepOld } from '../shared/housekeeping.ts';
import { scheduledRunStarter } from '../run-graph/scheduled-runs.ts';
import { healRunStarter } from '../run-graph/heal-runs.ts';
import type { StartHealRun } from '@svc/core/events/healer-consumer';
import type { LocalConfig } from './config.ts';
import { createLlmFromEnv } from '../llm/from-env.ts';
import { createStore } from '@svc/core/store/index';
import { systemClock } from '@svc/core/ports/clock';
import { localSecretCipher } from '../secrets/local-cipher.ts';
import { visionLocatorFromEnv } from '../llm/vision-locator.ts';

export interface LocalRuntime {
  url: string;
  app: SvcApp;
  deps: AppDeps;
  bus: LocalEventBus;
  events: LocalEvents;
  blobs: FsBlobs;
  admin: FirstAdmin;
  firstStart: boolean;
  close(): Promise<void>;
}

/**
 * The whole product on one machine: the same Hono app as on Lambda, over a file-backed
 * table and a blob folder under the data folder, on loopback only.
 */
/** Extension points for tests and embedders: the run graph's healer, browser and stream limits. */
export interface LocalRuntimeOptions {
  runGraph?: { healer?: Healer; browser?: () => Promise<UiDriver>; stream?: Partial<SseOptions> };
  /** Folders POST /api/analyze and analyze_code may read, instead of the config's (SVC_ANALYZE_ROOTS; none when unset). */
  analyzeRoots?: string[];
  /** Where the LLM settings (SVC_LLM_PROVIDERS, ...) are read from; default process.env. */
  llmEnv?: Record<string, string | undefined>;
}

export async function startLocalRuntime(config: LocalConfig, options: LocalRuntimeOptions = {}): Promise<LocalRuntime> {
  await mkdir(config.dataDir, { recursive: true });
  const logger = createLogger(config.logLevel);
  const table = await FileTable.open(join(config.dataDir, 'table'));
  const blobs = new FsBlobs(join(config.dataDir, 'blobs'));
  // The healer starts heal runs on the run graph built below; its queue is polled only after that (events.start()).
  let startHealRun: StartHealRun | undefined;
  const analyzeRoots = options.analyzeRoots ?? config.analyzeRoots;
  const events = createLocalEvents({
    table,
    logger,
    // The knowledge worker analyses ingested codebases: uploads from the blobs, folders inside SVC_ANALYZE_ROOTS.
    knowledge: { blobs, readFolder: (path, organizationId) => readAllowedFolder(path, analyzeRoots, organizationId) },
    startHealRun: (tenant, request) => {
      if (!startHealRun) throw new Error('the runtime is still starting: heal runs start once the run graph is up');
      return startHealRun(tenant, request);
    },
  });
  const bus = events.bus;
  events.metrics.registry.addCollector(async () => events.metrics.browserPoolActiveSessions.set({}, activeBrowserSessions()));
  try {
    // Before anything else reads the store: a missing or wrong key file stops the start here.
    const cipher = await localSecretCipher(config.secretKeyFile, createStore(table, systemClock).settings);
    const deps = await buildAppDeps({
      table,
      cipher,
      publisher: bus,
      metrics: events.metrics.registry,
      logger,
      api: {
        ...defaultApiConfig,
        rateLimitPerMinute: config.rateLimitPerMinute,
        authRateLimitPerMinute: config.authRateLimitPerMinute,
        loginFailuresPerEmail: config.loginFailuresPerEmail,
        trustedProxyHops: config.trustedProxyHops,
        maxBodyBytes: config.maxBodyBytes,
        corsOrigins: config.corsOrigins.split(',').map((s) => s.trim()).filter(Boolean),
      },
      issuer: { issuer: 'urn:svc:local', audience: 'svc' },
      externalIssuer: config.jwksUrl && config.jwtIssuer ? { jwksUrl: config.jwksUrl, issuer: config.jwtIssuer, audience: config.jwtAudience } : undefined,
      healthChecks: dataLayerChecks({ table, blobs }),
      webAssets: loadWebAsset,
      traceViewerAssets: loadTraceViewerAsset,
    });
    deps.llm = createLlmFromEnv(options.llmEnv ?? process.env, { store: deps.store, clock: deps.clock, alerts: events.alerts, metrics: events.metrics.registry, logger });
    const vision = visionLocatorFromEnv(options.llmEnv ?? process.env, deps.llm);
    deps.embedder = embedderFromEnv(process.env); // healing memory (SVC_EMBEDDINGS_PROVIDER; default local)
    deps.healthChecks.knowledge_layer = knowledgeLayerCheck(deps.embedder);
    deps.blobs = blobs; // visual baseline images (the routes; runs get them through the run graph)
    const { admin, created } = await ensureFirstAdmin(deps, config.dataDir);
    // Runs survive restarts: unfinished ones resume from their last checkpoint here.
    const { createSqlDriver } = await import('../execution/sql/sql-driver.ts');
    deps.runGraph = await createLocalRunGraph({
      store: deps.store,
      table,
      clock: deps.clock,
      logger,
      dataDir: config.dataDir,
      blobs,
      // With SVC_LLM_VISION, each run's browser gets the vision fallback's model, paid by the run's organization.
      browser: options.runGraph?.browser ?? (async (run?: { threadId: string; organizationId: string }): Promise<UiDriver> => (await import('../execution/browser/playwright-driver.ts')).createPlaywrightDriver({ executablePath: config.chromiumPath, prewarm: 1, vision: run ? vision?.({ organizationId: run.organizationId, runId: run.threadId }) : undefined })),
      sql: createSqlDriver(),
      healer: options.runGraph?.healer,
      // API runs heal in-step with the store's patterns, cache and memory, and analyse their codebase when it lies in SVC_ANALYZE_ROOTS.
      healingKnowledge: { embedder: deps.embedder, llm: deps.llm },
      publisher: deps.publisher,
      analyzeRoots,
      publicUrl: config.publicUrl,
    });
    startHealRun = healRunStarter({ store: deps.store, runGraph: deps.runGraph });
    deps.runGraphStream = options.runGraph?.stream;
    deps.publicUrl = config.publicUrl;
    const { createGenerationExecutor } = await import('../generation/execute-once.ts');
    deps.generation = createGenerationExecutor({ store: deps.store, dataDir: config.dataDir, browser: options.runGraph?.browser ?? (async (): Promise<UiDriver> => (await import('../execution/browser/playwright-driver.ts')).createPlaywrightDriver({ executablePath: config.chromiumPath })) });
    deps.analyzeRoots = analyzeRoots;
    const { createDiscoveryRunner } = await import('../discovery/runner.ts');
    // Crawls, quality audits and PDF reports share one browser, launched when the first of them needs it.
    const onDemandBrowser = lazyDriver(async () => (await import('../execution/browser/playwright-driver.ts')).createPlaywrightDriver({ executablePath: config.chromiumPath }));
    // Extra hosts every crawl or audit may visit (comma-separated); read here until LocalConfig carries it.
    const allowedHosts = (process.env.SVC_DISCOVERY_ALLOWED_HOSTS ?? '').split(',').map((s) => s.trim()).filter(Boolean);
    deps.discovery = createDiscoveryRunner({ store: deps.store, blobs, logger, driver: onDemandBrowser.get, allowedHosts });
    const { chromiumProbe } = await import('../quality/chromium-probe.ts');
    deps.qualityAudit = { probe: chromiumProbe(onDemandBrowser.get), allowedHosts };
    // PDF reports print in that same browser: no second Chromium for an occasional export.
    const { chromiumPdfPrinter } = await import('../reporting/chromium-pdf.ts');
    deps.reportPdf = chromiumPdfPrinter(onDemandBrowser.get);
    const app = createApp(deps);
    // Codebases queued before a restart: their events were in the (in-memory) queue.
    await requeueIngestions({ store: deps.store, publisher: deps.publisher, clock: deps.clock, logger });
    const server = await listen(app, config.host, config.port);
    events.start();
    // Scheduled runs: the same sweep a per-minute schedule calls on AWS.
    const schedules = scheduleService({ store: deps.store, clock: deps.clock });
    const startScheduled = scheduledRunStarter(deps.runGraph);
    const ticker = startTicker(config.scheduleTickMs, () => schedules.sweep(startScheduled, logger), logger);
    // Old visual images and run artifacts: the daily sweep on AWS (aws/housekeeping-handler.ts), here every few hours from a minute after start.
    const housekeeping = startTicker(config.housekeepingIntervalMs, () => sweepOld(deps, blobs, config), logger, Math.min(60_000, config.housekeepingIntervalMs));
    const port = (server.address() as AddressInfo).port;
    const host = config.host === '::1' ? '[::1]' : config.host;
    return {
      url: `http://${host}:${port}`,
      app,
      deps,
      bus,
      events,
      blobs,
      admin,
      firstStart: created,
      async close() {
        await ticker.stop();
        await housekeeping.stop();
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          (server as { closeAllConnections?: () => void }).closeAllConnections?.();
        });
        await deps.runGraph?.close();
        await deps.generation?.close();
        await deps.discovery?.close();
        await onDemandBrowser.close();
        await events.stop();
        await table.close?.();
      },
    };
  } catch (err) {
    await table.close?.();
    throw err;
  }
}

/** A browser driver made on first use and shared; a failed launch is tried again next time. */
function lazyDriver(make: () => Promise<PlaywrightDriver>) {
  let driver: Promise<PlaywrightDriver> | undefined;
  return {
    get: (): Promise<PlaywrightDriver> => (driver ??= make().catch((e: unknown) => {
      driver = undefined;
      throw e;
    })),
    async close(): Promise<void> {
      await (await driver?.catch(() => undefined))?.close();
    },
  };
}

function listen(app: SvcApp, hostname: string, port: number): Promise<ServerType> {
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: app.fetch, hostname, port }, () => resolve(server));
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(err.code === 'EADDRINUSE' ? new Error(`port ${port} on ${hostname} is in use; set SVC_PORT or --port`) : err),
    );
  });
}
