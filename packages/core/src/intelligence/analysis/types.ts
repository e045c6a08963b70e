import { z } from 'zod';

/**
 * The code analyser's contract (spec: issue #6 item 1, rule 7). Everything here has
 * already been through redaction: no field carries a secret, and personal data is
 * reported by kind and line only, never by value.
 */

export const SourceFile = z.strictObject({
  path: z.string().min(1).max(1024).describe('Path relative to the repository root, "/"-separated'),
  content: z.string().describe('UTF-8 text of the file'),
});
export type SourceFile = z.output<typeof SourceFile>;

export const SurfaceKind = z.enum(['http_route', 'api_route', 'page', 'client_route', 'openapi_operation']).describe('What kind of testable surface');

export const Surface = z.object({
  kind: SurfaceKind,
  method: z.string().describe('HTTP method in upper case; ANY when every method is served; GET for pages and client routes'),
  path: z.string().describe('Route path in Express style (:param, * for catch-all)'),
  file: z.string(),
  line: z.number().int().positive().describe('1-based line of the declaration'),
  framework: z.string().describe('express, fastify, hono, koa, nextjs-app, nextjs-pages, react-router, openapi, object-route, unknown'),
  name: z.string().optional().describe('operationId, handler or component name when known'),
});
export type Surface = z.output<typeof Surface>;

export const UiElement = z.object({
  file: z.string(),
  line: z.number().int().positive(),
  tag: z.string(),
  test_attribute: z.string().optional().describe('data-testid, data-test, data-test-id or data-cy'),
  test_id: z.string().optional(),
  role: z.string().optional(),
  label: z.string().optional().describe('aria-label, or the name/placeholder of a field'),
  selector: z.string().describe('A CSS selector for the element built from its most stable attribute'),
});
export type UiElement = z.output<typeof UiElement>;

export const FormField = z.object({
  tag: z.string(),
  name: z.string().optional(),
  type: z.string().optional(),
  test_id: z.string().optional(),
  selector: z.string().optional(),
});

export const UiForm = z.object({
  file: z.string(),
  line: z.number().int().positive(),
  action: z.string().optional(),
  method: z.string().optional(),
  selector: z.string().optional(),
  fields: z.array(FormField),
});
export type UiForm = z.output<typeof UiForm>;

export const Classification = z.enum(['public', 'internal', 'confidential', 'restricted']).describe('Sensitivity level (spec rule 7); see docs/intelligence.md');
export type Classification = z.output<typeof Classification>;

export const Finding = z.object({
  file: z.string(),
  line: z.number().int().positive(),
  kind: z.string().describe('Secret kind (aws_access_key, private_key, jwt, ...) or personal-data kind (email, us_ssn, card_number)'),
});
export type Finding = z.output<typeof Finding>;

export const FileReport = z.object({
  path: z.string(),
  language: z.string(),
  bytes: z.number().int().nonnegative(),
  classification: Classification,
  secrets_redacted: z.number().int().nonnegative(),
  personal_data: z.number().int().nonnegative(),
  content: z.string().optional().describe('Redacted text, only when asked for'),
});
export type FileReport = z.output<typeof FileReport>;

export const SkippedFile = z.object({
  path: z.string(),
  reason: z.string(),
});
export type SkippedFile = z.output<typeof SkippedFile>;

export const CodebaseSummary = z.object({
  files: z.number().int().nonnegative(),
  bytes: z.number().int().nonnegative(),
  languages: z.array(z.object({ language: z.string(), files: z.number().int(), bytes: z.number().int() })).describe('Largest first by file count'),
  frameworks: z.array(z.string()),
  entry_points: z.array(z.string()),
  counts: z.object({
    surfaces: z.number().int(),
    http_routes: z.number().int(),
    api_routes: z.number().int(),
    pages: z.number().int(),
    client_routes: z.number().int(),
    openapi_operations: z.number().int(),
    elements: z.number().int(),
    forms: z.number().int(),
    skipped: z.number().int(),
    secrets_redacted: z.number().int(),
    personal_data: z.number().int(),
  }),
  classification: z.object({ public: z.number().int(), internal: z.number().int(), confidential: z.number().int(), restricted: z.number().int() }),
  highest_classification: Classification,
  text: z.string().describe('One-paragraph summary for people and events'),
});
export type CodebaseSummary = z.output<typeof CodebaseSummary>;

export const Analysis = z.object({
  summary: CodebaseSummary,
  surfaces: z.array(Surface),
  elements: z.array(UiElement),
  forms: z.array(UiForm),
  files: z.array(FileReport),
  secrets: z.array(Finding).describe('Where secrets were found and redacted (never the value)'),
  personal_data: z.array(Finding).describe('Where personal data was flagged (never the value)'),
  skipped: z.array(SkippedFile),
});
export type Analysis = z.output<typeof Analysis>;

/** What one extractor found in one file. */
export interface Extracted {
  surfaces: Surface[];
  elements: UiElement[];
  forms: UiForm[];
  frameworks: string[];
}

export const emptyExtracted = (): Extracted => ({ surfaces: [], elements: [], forms: [], frameworks: [] });

/** Inline uploads are capped so one request cannot pin the server's memory. */
export const inlineLimits = { maxFiles: 2000, maxFileBytes: 1024 * 1024, maxTotalBytes: 20 * 1024 * 1024 };

export const AnalyzeRequest = z
  .strictObject({
    project_id: z.uuid().describe('Project the codebase belongs to'),
    path: z.string().min(1).max(4096).optional().describe('Folder on the server to read; must be inside SVC_ANALYZE_ROOTS (local runtime only)'),
    files: z
      .array(z.strictObject({
        path: z.string().min(1).max(1024).describe('Path relative to the repository root'),
        content: z.string().max(inlineLimits.maxFileBytes).describe(`File text, at most ${inlineLimits.maxFileBytes} characters`),
      }))
      .min(1)
      .max(inlineLimits.maxFiles)
      .optional()
      .describe(`Files uploaded inline, at most ${inlineLimits.maxFiles} and ${inlineLimits.maxTotalBytes} characters in total`),
    include_content: z.boolean().default(false).describe('Return each file\'s redacted text as well'),
    async: z.boolean().default(false).describe('Hand the codebase to the knowledge worker and answer 202 with the ingestion; GET /api/analyze/{id} has the analysis once done'),
    commit_sha: z.string().min(1).max(64).optional().describe('Commit the codebase is at (kept on the ingestion and its events)'),
  })
  .superRefine((v, ctx) => {
    if ((v.path === undefined) === (v.files === undefined)) ctx.addIssue({ code: 'custom', path: ['path'], message: 'send exactly one of path or files' });
    const total = (v.files ?? []).reduce((a, f) => a + f.content.length, 0);
    if (total > inlineLimits.maxTotalBytes) ctx.addIssue({ code: 'custom', path: ['files'], message: `files total ${total} characters; the limit is ${inlineLimits.maxTotalBytes}` });
  });
export type AnalyzeRequest = z.output<typeof AnalyzeRequest>;

export const AnalyzeResponse = Analysis.extend({
  source: z.object({ kind: z.enum(['path', 'inline']), path: z.string().optional(), partial: z.boolean().describe('A read limit stopped the read early; see skipped') }),
});
