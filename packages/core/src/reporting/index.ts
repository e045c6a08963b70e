import type { RunSummary } from '../execution/types.ts';
import { renderHtmlReport, type HtmlReportOptions } from './html-report.ts';
import { renderJsonReport } from './json-report.ts';
import { renderJUnitReport, type JUnitReportOptions } from './junit-report.ts';
import { renderMarkdownReport, type MarkdownReportOptions } from './markdown-report.ts';

/**
 * Reports of a run, each a pure function of the RunSummary. Core returns strings; the
 * caller stores them (artifact sink, files next to the CLI's output, S3).
 */

export { renderHtmlReport, type HtmlReportOptions } from './html-report.ts';
export { embeddedArtifactKeys } from './format.ts';
export { renderJsonReport, buildJsonReport, jsonReportSchema, JsonReport, REPORT_SCHEMA } from './json-report.ts';
export { renderJUnitReport, type JUnitReportOptions } from './junit-report.ts';
export { renderMarkdownReport, type MarkdownReportOptions } from './markdown-report.ts';
export { renderPdfReport, pdfReportTitle, type ReportPdfPrinter } from './pdf-report.ts';

export const reportFormats = ['html', 'json', 'md', 'junit'] as const;
export type ReportFormat = (typeof reportFormats)[number];

export interface RenderedReport {
  format: ReportFormat;
  /** Conventional file name: report.html, report.json, report.md, junit.xml. */
  filename: string;
  contentType: string;
  body: string;
}

export type RenderReportsOptions = HtmlReportOptions & MarkdownReportOptions & JUnitReportOptions;

const FILES: Record<ReportFormat, { filename: string; contentType: string }> = {
  html: { filename: 'report.html', contentType: 'text/html; charset=utf-8' },
  json: { filename: 'report.json', contentType: 'application/json; charset=utf-8' },
  md: { filename: 'report.md', contentType: 'text/markdown; charset=utf-8' },
  junit: { filename: 'junit.xml', contentType: 'application/xml; charset=utf-8' },
};

/** Renders the requested formats, each once, in the order asked. */
export function renderReports(summary: RunSummary, formats: readonly ReportFormat[], opts: RenderReportsOptions = {}): RenderedReport[] {
  return [...new Set(formats)].map((format) => ({ format, ...FILES[format], body: render(summary, format, opts) }));
}

function render(summary: RunSummary, format: ReportFormat, opts: RenderReportsOptions): string {
  switch (format) {
    case 'html':
      return renderHtmlReport(summary, opts);
    case 'json':
      return renderJsonReport(summary);
    case 'md':
      return renderMarkdownReport(summary, opts);
    case 'junit':
      return renderJUnitReport(summary, opts);
    default: {
      const unknown: never = format;
      throw new Error(`unknown report format: ${String(unknown)}`);
    }
  }
}
