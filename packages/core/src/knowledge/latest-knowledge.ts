import type { Blobs } from '../ports/blobs.ts';
import type { Store } from '../store/index.ts';
import type { CodebaseIngestion } from '../contracts/codebase-ingestions.ts';
import { Analysis } from '../intelligence/analysis/types.ts';
import { ingestionBlobKeys } from './blob-keys.ts';

/** The analysis the knowledge worker kept for an ingestion; undefined when it is gone or unreadable. */
export async function keptAnalysis(blobs: Blobs, orgId: string, ingestionId: string): Promise<Analysis | undefined> {
  const blob = await blobs.get(ingestionBlobKeys.analysis(orgId, ingestionId));
  if (!blob) return undefined;
  try {
    const analysis = Analysis.safeParse(JSON.parse(new TextDecoder().decode(blob.body)));
    return analysis.success ? analysis.data : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A project's knowledge of its code: its latest analysed ingestion and the analysis the
 * knowledge worker kept. Undefined when there is none, or when the kept analysis is gone or
 * unreadable (then it is as if the code had never been ingested).
 */
export async function latestKnowledge(store: Store, blobs: Blobs, orgId: string, projectId: string): Promise<{ ingestion: CodebaseIngestion; analysis: Analysis } | undefined> {
  const ingestion = await store.codebaseIngestions.latestAnalyzed(projectId);
  const analysis = ingestion && (await keptAnalysis(blobs, orgId, ingestion.id));
  return ingestion && analysis ? { ingestion, analysis } : undefined;
}
