import { AppError, conflict } from '../errors.ts';
import { isTerminalRunStatus, type TestRun } from '../contracts/test-run.ts';
import type { ReportDocumentFormat } from '../contracts/report-document.ts';
import type { RunSummary } from '../execution/types.ts';
import type { HtmlReportOptions } from './html-report.ts';
import { renderReports, type ReportFormat } from './index.ts';
import { renderPdfReport, type ReportPdfPrinter } from './pdf-report.ts';

/** A report as a file to hand over: its bytes or text, its type and a name to save it as. */
export interface ReportDocument {
  filename: string;
  contentType: string;
  body: string | Uint8Array<ArrayBuffer>;
}

export interface ReportDocumentOptions extends Pick<HtmlReportOptions, 'embed' | 'maxEmbedBytes'> {
  /** Prints HTML to PDF (a browser); absent, `pdf` is refused with NOT_CONFIGURED. */
  pdf?: ReportPdfPrinter;
}

/**
 * Whether a document of `run` in `format` can be made, checked before anything is read:
 * the run must have finished (409), and a PDF needs a printer (501).
 *
 * A report document is a record someone keeps or sends on, so it is made only of a run
 * that has finished: a running run's document would show a partial result under a
 * finishing time that is just "now". (`GET /api/reports/{run_id}` is the live view and
 * renders a running run as it stands.)
 */
export function checkReportDocument(run: Pick<TestRun, 'id' | 'status'>, format: ReportDocumentFormat, options: Pick<ReportDocumentOptions, 'pdf'> = {}): void {
  if (!isTerminalRunStatus(run.status)) {
    throw conflict(
      `run ${run.id} has not finished (status ${run.status}); a report document can be made once it has completed, failed or been cancelled — GET /api/reports/${run.id} shows its report so far`,
      { status: run.status },
    );
  }
  if (format === 'pdf' && !options.pdf) throw noPrinter();
}

const noPrinter = () => new AppError('NOT_CONFIGURED', 'format pdf needs a browser to print the report, and this server has none (on AWS: no browser function, SVC_BROWSER_FUNCTION_NAME); ask for format html, or make the PDF with svc run --reporter pdf');

const TEXT: Record<Exclude<ReportDocumentFormat, 'pdf'>, ReportFormat> = { html: 'html', json: 'json', markdown: 'md', md: 'md', junit: 'junit' };
const EXTENSION: Record<ReportFormat, string> = { html: 'html', json: 'json', md: 'md', junit: 'xml' };

/** The report of a finished run in `format`, named after the run (`svc-report-<run>.pdf`, `svc-junit-<run>.xml`, …). */
export async function reportDocument(summary: RunSummary, format: ReportDocumentFormat, options: ReportDocumentOptions = {}): Promise<ReportDocument> {
  const { pdf, ...embedding } = options;
  const name = summary.run_id.replace(/[^A-Za-z0-9._-]/g, '_');
  if (format === 'pdf') {
    if (!pdf) throw noPrinter();
    return { filename: `svc-report-${name}.pdf`, contentType: 'application/pdf', body: await renderPdfReport(summary, pdf, embedding) };
  }
  const [report] = renderReports(summary, [TEXT[format]], embedding);
  return { filename: `svc-${report.format === 'junit' ? 'junit' : 'report'}-${name}.${EXTENSION[report.format]}`, contentType: report.contentType, body: report.body };
}
