import type { Blobs } from '../ports/blobs.ts';
import type { Store } from '../store/index.ts';
import type { CodeAnalysisOutcome, CodeAnalyzer } from '../run-graph/code-analyzer.ts';
import { NOT_CONFIGURED } from '../run-graph/analyze-code.ts';
import { latestKnowledge } from './latest-knowledge.ts';


/**
 * analyze_code's analyzer with the knowledge worker's memory: the run's own codebase when this
 * server can read it (`live`: a folder in SVC_ANALYZE_ROOTS), else the project's latest
 * analysed ingestion. So a deployment that reads no folders (a Lambda) still plans runs
 * against the code a team uploaded with `POST /api/analyze` (`async`). The run's summary
 * names the ingestion and when it was made, so nobody mistakes it for a fresh read.
 */
export function withIngestedKnowledge(o: { store: Store; blobs?: Blobs; live?: CodeAnalyzer }): CodeAnalyzer {
  return {
    async analyze(input) {
      const own: CodeAnalysisOutcome = o.live ? await o.live.analyze(input) : { status: 'not_analyzed', reason: NOT_CONFIGURED };
      if (own.status === 'analyzed' || !o.blobs) return own;
      const known = await latestKnowledge(o.store, o.blobs, input.organizationId, input.projectId);
      if (!known) return own; // never ingested, or the kept analysis is gone
      const { ingestion: latest, analysis } = known;
      const commit = latest.commit_sha ? ` at commit ${latest.commit_sha}` : '';
      return {
        status: 'analyzed',
        codebase: `${latest.codebase_path}${commit} (ingestion ${latest.id}, analysed ${latest.finished_at}; this server could not read the code itself: ${own.reason})`,
        analysis,
        partial: latest.partial ?? false,
      };
    },
  };
}
