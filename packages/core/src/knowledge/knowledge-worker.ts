import { CodebaseIngestedPayload, type EventEnvelope } from '../contracts/events.ts';
import type { CodebaseIngestion } from '../contracts/codebase-ingestions.ts';
import { analyzeFiles } from '../intelligence/analysis/index.ts';
import { SourceFile, type Analysis, type SkippedFile } from '../intelligence/analysis/types.ts';
import type { Blobs } from '../ports/blobs.ts';
import type { ConsumerDefinition, HandlerContext } from '../events/consumer.ts';
import { analyzedPayload, codebaseAnalyzed, eventSources } from '../events/producers.ts';
import { ingestionItem, ingestionOutcome } from '../store/codebase-ingestions.ts';
import { keys, stripLayout } from '../store/keys.ts';
import { ingestionBlobKeys } from './blob-keys.ts';
import { z } from 'zod';

/** A folder the worker read: its files, what it skipped, and whether a limit cut the read short. */
export interface FolderRead {
  files: SourceFile[];
  skipped: SkippedFile[];
  partial: boolean;
}

export interface KnowledgeWorkerDeps {
  blobs: Blobs;
  /**
   * Reads a folder this worker may read (the functions side checks SVC_ANALYZE_ROOTS); a
   * reason when it may not (also when the folder is not open to that organization).
   * Absent → the worker reads no folders, only uploaded files.
   */
  readFolder?: (path: string, organizationId: string) => Promise<FolderRead | { reason: string }>;
  /** knowledge_ecl_operations_total (extract: reading and analysing; load: storing the analysis). */
  countOperation?: (operation: 'extract' | 'load', status: 'ok' | 'error') => void;
  /** Handler deadline (default 50 s, under the consumer function's 60 s). */
  timeoutMs?: number;
}

/** Time kept back from the deadline to record the verdict. */
const VERDICT_MARGIN_MS = 3_000;
const DEFAULT_TIMEOUT_MS = 50_000;

const UploadedFiles = z.array(SourceFile);
type Verdict = Parameters<typeof ingestionOutcome>[2];

/**
 * The knowledge worker (spec: codebase.ingested → knowledge worker → codebase.analyzed,
 * emission rule 5). It reads the ingested codebase (the files uploaded with the request, or
 * a folder it may read), runs the code analyser (secrets redacted, blocked files never
 * read), keeps the analysis as a blob and its summary on the ingestion record, and
 * publishes codebase.analyzed. A codebase it cannot analyse is a failed ingestion with the
 * reason, not a dead letter: trying again would fail the same way. Re-deliveries are
 * skipped by the consumer runner (event_id), and an ingestion already decided is left as is.
 */
export function knowledgeWorker(deps: KnowledgeWorkerDeps): ConsumerDefinition {
  const timeoutMs = deps.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  return {
    name: 'knowledge-worker',
    timeoutMs,
    handlers: { 'codebase.ingested': (event, ctx) => ingest(deps, event, ctx) },
  };
}

async function ingest(deps: KnowledgeWorkerDeps, event: EventEnvelope, ctx: HandlerContext): Promise<void> {
  const payload = CodebaseIngestedPayload.parse(event.payload);
  const org = event.tenant_id;
  const ingestionId = payload.ingestion_id ?? event.event_id;
  const stored = await ctx.table.get(keys.codebaseIngestion(org, ingestionId));
  const ingestion = stored ? stripLayout<CodebaseIngestion>(stored) : fromEvent(payload, ingestionId, event);
  if (ingestion.project_id !== payload.project_id) throw new Error(`ingestion ${ingestionId} belongs to another project than the event names`);
  if (ingestion.status !== 'queued') {
    ctx.log.info('codebase ingestion already decided; nothing to do', { ingestion_id: ingestionId, status: ingestion.status });
    return;
  }
  if (!stored) {
    // An ingestion another producer announced (no record yet) gets one with its verdict, so its
    // outcome can be read; but only for a project of the event's tenant.
    if (!(await ctx.table.get(keys.project(org, payload.project_id)))) throw new Error(`project ${payload.project_id} does not belong to tenant ${org}`);
  }

  const filesKey = ingestionBlobKeys.files(org, ingestionId);
  let outcome: { analysis: Analysis; partial: boolean } | { error: string };
  try {
    outcome = await withDeadline(analyse(deps, ingestion, org, ingestionId), ctx.deadline - VERDICT_MARGIN_MS - Date.now());
    deps.countOperation?.('extract', 'error' in outcome ? 'error' : 'ok');
  } catch (err) {
    deps.countOperation?.('extract', 'error');
    outcome = { error: (err as Error).message };
  }
  const now = ctx.clock.now().toISOString();
  // The verdict: an update of the stored record, or the whole record for an event that came without one.
  const decide = (verdict: Verdict) =>
    ctx.write(stored ? { type: 'update', update: ingestionOutcome(org, ingestionId, verdict) } : { type: 'put', item: ingestionItem(org, { ...ingestion, ...verdict }) });

  if ('error' in outcome) {
    decide({ status: 'failed', finished_at: now, error: outcome.error, summary: null, surface_count: null, partial: null });
    ctx.log.warn('codebase ingestion failed', { ingestion_id: ingestionId, error: outcome.error });
  } else {
    const { analysis, partial } = outcome;
    try {
      await deps.blobs.put(ingestionBlobKeys.analysis(org, ingestionId), JSON.stringify(analysis), 'application/json');
      deps.countOperation?.('load', 'ok');
    } catch (err) {
      deps.countOperation?.('load', 'error');
      throw err; // storage trouble is worth a retry (the runner dead-letters and re-delivers)
    }
    decide({ status: 'analyzed', finished_at: now, error: null, summary: analysis.summary, surface_count: analysis.surfaces.length, partial });
    ctx.emit(
      codebaseAnalyzed(
        { source: eventSources.knowledgeWorker, tenant_id: org, correlation_id: event.correlation_id, clock: ctx.clock },
        analyzedPayload(analysis, { project_id: ingestion.project_id, codebase_path: ingestion.codebase_path }, {
          ingestion_id: ingestionId,
          ...(ingestion.commit_sha ? { commit_sha: ingestion.commit_sha } : {}),
        }),
      ),
    );
  }
  // The upload held the files as sent (secrets included): it goes once the verdict is kept.
  if (ingestion.source.kind === 'inline') ctx.afterCommit(() => deps.blobs.delete(filesKey));
}

async function analyse(deps: KnowledgeWorkerDeps, ingestion: CodebaseIngestion, org: string, ingestionId: string): Promise<{ analysis: Analysis; partial: boolean } | { error: string }> {
  const includeContent = ingestion.include_content;
  if (ingestion.source.kind === 'inline') {
    const blob = await deps.blobs.get(ingestionBlobKeys.files(org, ingestionId));
    if (!blob) return { error: 'the uploaded files are gone (analysed before, or removed): send them again' };
    const files = UploadedFiles.safeParse(JSON.parse(new TextDecoder().decode(blob.body)));
    if (!files.success) return { error: 'the uploaded files could not be read back: send them again' };
    return { analysis: await analyzeFiles(files.data, { includeContent }), partial: false };
  }
  if (!deps.readFolder) return { error: 'this worker reads no folders (SVC_ANALYZE_ROOTS is not set where the knowledge worker runs); upload the files instead' };
  const read = await deps.readFolder(ingestion.source.path ?? ingestion.codebase_path, org);
  if ('reason' in read) return { error: read.reason };
  return { analysis: await analyzeFiles(read.files, { skipped: read.skipped, includeContent }), partial: read.partial };
}

/** A record for a codebase.ingested that came without one (another producer): a folder to read. */
function fromEvent(payload: z.output<typeof CodebaseIngestedPayload>, id: string, event: EventEnvelope): CodebaseIngestion {
  return {
    id,
    project_id: payload.project_id,
    status: 'queued',
    source: { kind: 'path', path: payload.codebase_path },
    codebase_path: payload.codebase_path,
    commit_sha: payload.commit_sha ?? null,
    include_content: false,
    created_at: new Date(Date.parse(event.timestamp)).toISOString(),
    created_by: null,
    finished_at: null,
    error: null,
    summary: null,
    surface_count: null,
    partial: null,
  };
}

async function withDeadline<T>(work: Promise<T>, ms: number): Promise<T | { error: string }> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<{ error: string }>((resolve) => {
    timer = setTimeout(() => resolve({ error: `the analysis took longer than the knowledge worker's limit (${Math.round(ms / 1000)} s): analyse a smaller folder, or upload fewer files` }), Math.max(0, ms));
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}
