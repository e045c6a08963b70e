import { embeddedArtifactKeys } from '@svc/core/reporting/index';
import type { RunSummary } from '@svc/core/execution/types';
import { runArtifactPrefix } from '../run-graph/blob-artifacts.ts';
import type { AppDeps } from './deps.ts';

/**
 * The screenshots and comparison images an HTML report embeds, read from the run's own
 * folder in Blobs (runs/<thread>/…, where server runs keep artifacts): a key outside it is
 * not read, whatever a stored result says. No blob store: the report names the images only.
 */
export async function runImages(deps: AppDeps, summary: RunSummary, threadId: string): Promise<Map<string, Uint8Array>> {
  const images = new Map<string, Uint8Array>();
  if (!deps.blobs) return images;
  const prefix = runArtifactPrefix(threadId);
  const keys = embeddedArtifactKeys(summary).filter((k) => k.startsWith(prefix) && !k.includes('..'));
  let total = 0;
  for (const key of keys) {
    const blob = await deps.blobs.get(key).catch(() => undefined);
    if (!blob) continue;
    // Past the budget the report names the image instead (a run of many full-page diffs
    // would otherwise be hundreds of MB in one response).
    if (total + blob.body.byteLength > REPORT_EMBED_BUDGET_BYTES) break;
    total += blob.body.byteLength;
    images.set(key, blob.body);
  }
  return images;
}

/** Images one HTML report embeds in all, base64 adding a third: a response stays well inside a Lambda's memory. */
const REPORT_EMBED_BUDGET_BYTES = 20 * 1024 * 1024;
