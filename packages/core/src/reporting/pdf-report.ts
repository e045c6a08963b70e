import type { RunSummary } from '../execution/types.ts';
import { renderHtmlReport, type HtmlReportOptions } from './html-report.ts';

/**
 * Prints an HTML document to a PDF. A port: printing needs a browser, and core has none
 * (the adapter, in packages/functions, prints with Chromium). `title` is what the page
 * header of every page shows.
 */
export type ReportPdfPrinter = (html: string, title: string) => Promise<Uint8Array<ArrayBuffer>>;

/** The text of every PDF page's header: it says which run a loose page belongs to. */
export const pdfReportTitle = (summary: RunSummary): string => `svc report · run ${summary.run_id}`;

/**
 * The PDF report: the HTML report, rendered for paper (every section open, no filters,
 * images embedded as in report.html), printed by `print`. One document in two forms, so
 * what a PDF shows never drifts from what the HTML shows.
 */
export function renderPdfReport(summary: RunSummary, print: ReportPdfPrinter, options: Omit<HtmlReportOptions, 'print'> = {}): Promise<Uint8Array<ArrayBuffer>> {
  return print(renderHtmlReport(summary, { ...options, print: true }), pdfReportTitle(summary));
}
