import { describe, expect, it } from 'vitest';
import { renderHtmlReport, renderJUnitReport, renderJsonReport, renderMarkdownReport, renderReports, reportFormats } from '@svc/core/reporting/index';
import { artifacts, makeSummary } from './fixtures.ts';

describe('renderReports', () => {
  const summary = makeSummary();
  const embed = (key: string) => artifacts.get(key);

  it('renders every format with its file name and content type', () => {
    const out = renderReports(summary, [...reportFormats], { embed });
    expect(out.map(({ format, filename, contentType }) => ({ format, filename, contentType }))).toEqual([
      { format: 'html', filename: 'report.html', contentType: 'text/html; charset=utf-8' },
      { format: 'json', filename: 'report.json', contentType: 'application/json; charset=utf-8' },
      { format: 'md', filename: 'report.md', contentType: 'text/markdown; charset=utf-8' },
      { format: 'junit', filename: 'junit.xml', contentType: 'application/xml; charset=utf-8' },
    ]);
    expect(out[0].body).toBe(renderHtmlReport(summary, { embed }));
    expect(out[1].body).toBe(renderJsonReport(summary));
    expect(out[2].body).toBe(renderMarkdownReport(summary));
    expect(out[3].body).toBe(renderJUnitReport(summary));
  });

  it('renders only what is asked, once each, in the order asked', () => {
    expect(renderReports(summary, ['junit', 'md', 'junit']).map((r) => r.filename)).toEqual(['junit.xml', 'report.md']);
    expect(renderReports(summary, [])).toEqual([]);
  });
});
