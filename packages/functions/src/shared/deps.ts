import { createStore } from '@svc/core/store/index';
import { createIdentityService } from '@svc/core/services/identity';
import { createLocalIssuer, createJwtVerifier, generateSigningKey, type JWK } from '@svc/core/auth/index';
import type { Table } from '@svc/core/ports/table';
import type { EventPublisher } from '@svc/core/ports/events';
import type { Logger } from '@svc/core/ports/logger';
import type { HealthCheck } from '@svc/core/ports/health';
import type { SecretCipher } from '@svc/core/ports/secret-cipher';
import { systemClock, type Clock } from '@svc/core/ports/clock';
import type { MetricsRegistry } from '@svc/core/telemetry/metrics';
import type { AppDeps, ApiConfig } from '../api/deps.ts';

export interface CommonDepsInput {
  table: Table;
  /** Seals the secrets the store keeps: the local key file's, or KMS's on AWS. */
  cipher: SecretCipher;
  publisher: EventPublisher;
  logger: Logger;
  api: ApiConfig;
  issuer: { issuer: string; audience: string; accessTtlSeconds?: number };
  /** An external identity provider whose JWTs are accepted besides the built-in issuer's. */
  externalIssuer?: { jwksUrl: string; issuer: string; audience?: string };
  healthChecks: Record<string, HealthCheck>;
  webAssets?: AppDeps['webAssets'];
  traceViewerAssets?: AppDeps['traceViewerAssets'];
  metrics: MetricsRegistry;
  metricsToken?: string;
  clock?: Clock;
}

/**
 * Wiring shared by every entry point (local runtime, Lambda): the store, the built-in
 * issuer (its signing key generated once and kept in the table, so every instance
 * agrees), the verifier and the identity service.
 */
export async function buildAppDeps(input: CommonDepsInput): Promise<AppDeps> {
  const clock = input.clock ?? systemClock;
  const store = createStore(input.table, clock, { cipher: input.cipher });
  // Sealed at rest like every stored credential: whoever reads the table cannot mint tokens.
  const privateJwk = await store.settings.getOrCreateSealed<JWK>('jwt-signing-key', generateSigningKey);
  const issuer = createLocalIssuer({ privateJwk, ...input.issuer, clock });
  const verifier = createJwtVerifier({ localIssuer: issuer, external: input.externalIssuer, clock });
  const identity = createIdentityService({ store, issuer, verifier });
  return {
    store,
    identity,
    issuer,
    publisher: input.publisher,
    logger: input.logger,
    clock,
    config: input.api,
    healthChecks: input.healthChecks,
    webAssets: input.webAssets,
    traceViewerAssets: input.traceViewerAssets,
    metrics: input.metrics,
    metricsToken: input.metricsToken,
  };
}
