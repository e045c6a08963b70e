import { z } from 'zod';
import { IsoDateTime, Uuid } from './common.ts';
import { CodebaseSummary } from '../intelligence/analysis/types.ts';

/**
 * A codebase handed to the knowledge worker (spec: codebase.ingested → knowledge worker →
 * codebase.analyzed). `POST /api/analyze` with `"async": true` creates one and answers 202;
 * the worker analyses it in the background and keeps the analysis as the project's
 * knowledge of its code, which runs use when they cannot read the code themselves.
 */
export const IngestionStatus = z.enum(['queued', 'analyzed', 'failed']).describe('queued → analyzed | failed');
export type IngestionStatus = z.output<typeof IngestionStatus>;

export const CodebaseIngestionSchema = z.object({
  id: Uuid,
  project_id: Uuid,
  status: IngestionStatus,
  source: z.object({
    kind: z.enum(['path', 'inline']).describe('A folder on the server (inside SVC_ANALYZE_ROOTS) or files uploaded with the request'),
    path: z.string().optional().describe('The folder, for kind path'),
    file_count: z.number().int().optional().describe('Files uploaded, for kind inline'),
  }),
  codebase_path: z.string().describe('The folder, or "inline upload" (the codebase.ingested payload field)'),
  commit_sha: z.string().nullable().describe('Commit the codebase is at, when the caller said'),
  include_content: z.boolean().describe("Whether the stored analysis keeps each file's redacted text"),
  created_at: IsoDateTime,
  created_by: z.string().nullable().describe('User or API key that sent it'),
  finished_at: IsoDateTime.nullable(),
  error: z.string().nullable().describe('Why the analysis failed (status failed)'),
  summary: CodebaseSummary.nullable().describe('What the analysis found (status analyzed)'),
  surface_count: z.number().int().nullable(),
  partial: z.boolean().nullable().describe('A read limit stopped the read early: the analysis covers part of the codebase'),
});
export type CodebaseIngestion = z.output<typeof CodebaseIngestionSchema>;

export const IngestionListQuery = z.strictObject({
  project_id: Uuid.describe('Project whose ingestions to list, newest first'),
  limit: z.coerce.number().int().min(1).max(100).default(20).describe('Page size, 1..100 (default 20)'),
  cursor: z.string().min(1).max(1024).optional().describe("Opaque cursor from the previous page's next_cursor"),
});
