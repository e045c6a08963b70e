import { z } from 'zod';

/**
 * Bodies of the report document endpoints (`POST /api/reports/generate` and
 * `POST /api/reports/{id}/download`): which run, and in which form. `pdf` is the default,
 * as the spec calls generating a report a "PDF export"; `md` is accepted beside `markdown`
 * because `GET /api/reports/{run_id}` calls it that.
 */
export const reportDocumentFormats = ['pdf', 'html', 'json', 'markdown', 'md', 'junit'] as const;
export const ReportDocumentFormat = z
  .enum(reportDocumentFormats)
  .describe('pdf (default: the HTML report printed by Chromium), html (self-contained), json, markdown (or md) or junit (JUnit XML)');
export type ReportDocumentFormat = z.output<typeof ReportDocumentFormat>;

export const GenerateReportInput = z.strictObject({
  run_id: z.string().min(1).max(200).describe('The run (its id, or its thread id); it must have finished'),
  format: ReportDocumentFormat.default('pdf'),
});

export const DownloadReportInput = z.strictObject({
  format: ReportDocumentFormat.default('pdf'),
});
