import { z } from 'zod';
import type { Context, Hono } from 'hono';
import { DownloadReportInput, GenerateReportInput, type ReportDocumentFormat } from '@svc/core/contracts/report-document';
import { checkReportDocument, reportDocument } from '@svc/core/reporting/report-document';
import type { ApiEnv } from '../env.ts';
import { mountRoute, type RouteDef } from '../route.ts';
import { runImages } from '../report-images.ts';
import { reportSummaryOf, runGraphOf, type RunGraphAppDeps } from './runs.ts';

const responses = {
  200: { description: 'the report as a file to save (Content-Disposition: attachment): application/pdf, text/html, application/json, text/markdown or application/xml' },
  400: { description: 'an invalid format or run id (the error names the field)' },
  404: { description: 'no such run in this organization' },
  409: { description: 'the run has not finished yet' },
  501: { description: 'format pdf on a server without a browser to print it' },
  503: { description: 'the PDF could not be printed in time (60 s) or Chromium failed' },
};

/**
 * Report documents (spec: "generate a report (PDF export)" and "download report"): the
 * report of a finished run as a file, PDF by default. Both paths do the same; the GET
 * route in runs.ts stays the live view of a run.
 */
export function reportRoutes(app: Hono<ApiEnv>, deps: RunGraphAppDeps, registry: RouteDef[]) {
  async function send(c: Context<ApiEnv>, organizationId: string, runId: string, format: ReportDocumentFormat): Promise<Response> {
    const { run, threadId } = await runGraphOf(deps).runs.resolve(organizationId, runId);
    // Before anything is read: an unfinished run (409) or a PDF nobody can print (501) costs nothing.
    checkReportDocument(run, format, { pdf: deps.reportPdf });
    const summary = await reportSummaryOf(deps, organizationId, run, threadId);
    const images = format === 'pdf' || format === 'html' ? await runImages(deps, summary, threadId) : new Map<string, Uint8Array>();
    const doc = await reportDocument(summary, format, { embed: (key) => images.get(key), pdf: deps.reportPdf });
    return c.body(doc.body, 200, {
      'content-type': doc.contentType,
      'content-disposition': `attachment; filename="${doc.filename}"`,
      'cache-control': 'no-store',
    });
  }

  mountRoute(app, deps, registry, {
    method: 'post', path: '/api/reports/generate', summary: 'Generate the report of a finished run as a file: PDF (default), HTML, JSON, Markdown or JUnit XML', tags: ['runs'], auth: 'viewer',
    body: GenerateReportInput, responses,
  }, async ({ c, body, access }) => send(c, access.organizationId, body.run_id, body.format));

  mountRoute(app, deps, registry, {
    method: 'post', path: '/api/reports/:id/download', summary: 'Download the report of a finished run as a file: PDF (default), HTML, JSON, Markdown or JUnit XML', tags: ['runs'], auth: 'viewer',
    params: z.strictObject({ id: z.string().min(1).max(200).describe('Run id (or thread id)') }), body: DownloadReportInput, responses,
  }, async ({ c, params, body, access }) => send(c, access.organizationId, params.id, body.format));
}
