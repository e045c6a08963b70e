import { existsSync, readFileSync } from 'node:fs';
import { join, dirname, sep } from 'node:path';
import { createRequire } from 'node:module';
import type { Table } from '@svc/core/ports/table';
import type { Blobs } from '@svc/core/ports/blobs';
import type { HealthCheck } from '@svc/core/ports/health';
import type { Embedder } from '@svc/core/healing/service/embedder';

/** Real checks of each data-layer component; those not yet part of svc say so. */
export function dataLayerChecks(deps: { table: Table; blobs: Blobs; chromiumPath?: string }): Record<string, HealthCheck> {
  const notYet = (what: string): HealthCheck => async () => ({ status: 'not_configured', detail: what });
  return {
    database: async () => deps.table.health(),
    blob_store: async () => {
      const key = `health/probe-${process.pid}`;
      await deps.blobs.put(key, 'ok', 'text/plain');
      const back = await deps.blobs.get(key);
      await deps.blobs.delete(key);
      return back && new TextDecoder().decode(back.body) === 'ok' ? { status: 'ok' } : { status: 'down', detail: 'probe did not read back' };
    },
    browser_grid: async () => browserStatus(deps.chromiumPath),
    // Replaced by knowledgeLayerCheck once the embedder is chosen (the runtimes set it after the deps).
    knowledge_layer: notYet('no embedder: healing memory and semantic search are not set up'),
    graph_database: notYet('svc keeps no graph database; relations live in the table'),
    metrics_system: async () => ({ status: 'ok', detail: 'Prometheus text format at /metrics' }),
    dashboards: async () => ({ status: 'ok', detail: 'served by the API' }),
  };
}

function browserStatus(explicitPath?: string) {
  if (explicitPath) return existsSync(explicitPath) ? { status: 'ok' as const, detail: explicitPath } : { status: 'down' as const, detail: `no browser at ${explicitPath}` };
  try {
    // The package's exports hide package.json; find it beside the resolved entry point.
    const entry = createRequire(import.meta.url).resolve('@sparticuz/chromium');
    const pkgFile = join(entry.slice(0, entry.lastIndexOf(`${sep}node_modules${sep}@sparticuz${sep}chromium${sep}`)), 'node_modules', '@sparticuz', 'chromium', 'package.json');
    const pkg = JSON.parse(readFileSync(pkgFile, 'utf8')) as { version: string };
    const binDir = join(dirname(pkgFile), 'bin');
    if (!existsSync(binDir)) return { status: 'down' as const, detail: `@sparticuz/chromium ${pkg.version} has no bin folder` };
    return { status: 'ok' as const, version: `@sparticuz/chromium ${pkg.version}`, nodes: 1 };
  } catch {
    return { status: 'down' as const, detail: '@sparticuz/chromium is not installed' };
  }
}

/**
 * The knowledge layer — healing memory and semantic search — is the embedder they share:
 * it is up when a short text embeds (5 s at most). With a remote provider that is one small
 * embeddings call per health check, the price of saying it works rather than that it is set.
 */
export function knowledgeLayerCheck(embedder: Embedder): HealthCheck {
  return async () => {
    try {
      const [vector] = await embedder.embed(['svc health probe'], AbortSignal.timeout(5_000));
      return vector && vector.length > 0
        ? { status: 'ok', detail: `healing memory and semantic search, embeddings ${embedder.model} (${vector.length} dimensions)` }
        : { status: 'down', detail: `embeddings ${embedder.model} returned no vector` };
    } catch (err) {
      return { status: 'down', detail: `embeddings ${embedder.model}: ${(err as Error).message.split('\n')[0]}` };
    }
  };
}

