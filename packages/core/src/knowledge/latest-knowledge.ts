import type { Blobs } from '../ports/blobs.ts';
import type { Store } from '../store/index.ts';
import type { CodebaseIngestion } from '../contracts/codebase-ingestions.ts';
import { Analysis } from '../intelligence/analysis/types.ts';
import { ingestionBlobKeys } from './blob-keys.ts';

/**
 * A project's knowledge of its code: its latest analysed ingestion and the analysis the
 * knowledge worker kept. Undefined when there is none, or when the kept analysis is gone or
 * unreadable (then it is as if the code had never been ingested).
 */
export async function latestKnowledge(store: Store, blobs: Blobs, orgId: string, projectId: string): Promise<{ ingestion: CodebaseIngestion; analysis: Analysis } | undefined> {
  const ingestion = await store.codebaseIngestions.latestAnalyzed(projectId);
  if (!ingestion) return undefined;
  const blob = await blobs.get(ingestionBlobKeys.analysis(orgId, ingestion.id));
  if (!blob) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder().decode(blob.body));
  } catch {
    return undefined;
  }
  const analysis = Analysis.safeParse(parsed);
  return analysis.success ? { ingestion, analysis: analysis.data } : undefined;
}
