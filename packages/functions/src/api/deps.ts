import type { Store } from '@svc/core/store/index';
import type { IdentityService } from '@svc/core/services/identity';
import type { LocalIssuer } from '@svc/core/auth/index';
import type { EventPublisher } from '@svc/core/ports/events';
import type { Logger } from '@svc/core/ports/logger';
import type { Clock } from '@svc/core/ports/clock';
import type { HealthCheck } from '@svc/core/ports/health';
import type { MetricsRegistry } from '@svc/core/telemetry/metrics';
import type { Embedder } from '@svc/core/healing/service/embedder';
import type { RunManager } from '../run-graph/run-manager.ts';
import type { SseOptions } from '../run-graph/sse.ts';
import type { DiscoveryRunner } from '../discovery/runner.ts';
import type { GenerationExecutor } from '../generation/execute-once.ts';
import type { LlmClient } from '@svc/core/llm/types';
import type { Blobs } from '@svc/core/ports/blobs';
import type { PageProbe } from '@svc/core/quality/page-probe';
import type { ReportPdfPrinter } from '@svc/core/reporting/pdf-report';

export interface ApiConfig {
  /** Origins allowed to call the API with credentials from a browser; none by default. */
  corsOrigins: string[];
  /** Mark cookies Secure (on for anything served over https). */
  secureCookies: boolean;
  /** Requests per minute per caller, and per IP on sign-up/login/refresh. */
  rateLimitPerMinute: number;
  authRateLimitPerMinute: number;
  /** Failed sign-ins per email per 15 minutes, from any address (SVC_LOGIN_FAILURE_LIMIT). */
  loginFailuresPerEmail: number;
  /**
   * Proxies of the operator's in front of svc that append to X-Forwarded-For (SVC_TRUSTED_PROXY_HOPS):
   * 0, the default, reads no X-Forwarded-For and limits by the peer's address (the socket's, or the one API Gateway saw).
   */
  trustedProxyHops: number;
  /** Largest accepted request body. */
  maxBodyBytes: number;
  /** Product version reported by /health. */
  version: string;
}

export const defaultApiConfig: ApiConfig = {
  corsOrigins: [],
  secureCookies: false,
  rateLimitPerMinute: 1200,
  authRateLimitPerMinute: 30,
  loginFailuresPerEmail: 10,
  trustedProxyHops: 0,
  maxBodyBytes: 100 * 1024 * 1024,
  version: '0.1.0',
};

/** Everything the Hono app needs, built by an entry point (local runtime or Lambda). */
export interface AppDeps {
  store: Store;
  identity: IdentityService;
  issuer: LocalIssuer;
  publisher: EventPublisher;
  logger: Logger;
  clock: Clock;
  config: ApiConfig;
  /** The process's metrics, served at /metrics. */
  metrics: MetricsRegistry;
  /** When set, /metrics requires `Authorization: Bearer <token>`. */
  metricsToken?: string;
  /** Named component checks for /api/v1/health/data-layer. */
  healthChecks: Record<string, HealthCheck>;
  /** Where people reach this svc (SVC_PUBLIC_URL): links svc hands out (an automation event's run) are absolute there; absent → paths. */
  publicUrl?: string;
  /** The run graph (runs, streams, approvals, time travel); absent → those routes answer 501. */
  runGraph?: RunManager;
  /** Stream limits; on Lambda maxStreamMs stays below the function's timeout. */
  runGraphStream?: Partial<SseOptions>;
  /** Folders POST /api/analyze may read by path (SVC_ANALYZE_ROOTS); absent or empty → inline uploads only. */
  analyzeRoots?: string[];
  /** Embeds failures for healing memory; absent → the local deterministic embedder. */
  embedder?: Embedder;
  /** Serves the dashboard's static files; absent when the dashboard is hosted elsewhere. */
  webAssets?: (path: string) => Promise<{ body: Uint8Array; contentType: string } | undefined>;
  /** Serves Playwright's trace viewer at /trace-viewer/ (the dashboard opens failed tests' traces in it); absent → not served. */
  traceViewerAssets?: AppDeps['webAssets'];
  /** Runs auto-discovery crawls (needs a browser); absent → discovery routes answer 501. */
  discovery?: DiscoveryRunner;
  /** Runs each generated test once (the run graph's runner and browser); absent → generated tests are returned unexecuted. */
  generation?: GenerationExecutor;
  /** Language models behind the router (llm/from-env.ts); absent or not configured → deterministic paths, NO_MODEL for model-only calls. */
  llm?: LlmClient;
  /** Opens pages for POST /api/quality/audit (a browser), and the hosts any project may audit besides its own; absent → 501. */
  qualityAudit?: { probe: PageProbe; allowedHosts: string[] };
  /** Artifacts and visual baseline images (a folder locally, S3 on AWS); absent → the visual image routes answer 501. */
  blobs?: Blobs;
  /**
   * Prints a report's HTML to PDF (Chromium; the local runtime's shared browser), one at a
   * time with a time cap; absent → `format: pdf` on the report document routes answers 501.
   */
  reportPdf?: ReportPdfPrinter;
}
