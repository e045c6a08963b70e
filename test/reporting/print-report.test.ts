import { parse, type DefaultTreeAdapterMap } from 'parse5';
import { describe, expect, it } from 'vitest';
import { renderHtmlReport } from '@svc/core/reporting/html-report';
import { pdfReportTitle, renderPdfReport } from '@svc/core/reporting/pdf-report';
import { artifacts, makeSummary } from './fixtures.ts';

type Node = DefaultTreeAdapterMap['node'];
type Element = DefaultTreeAdapterMap['element'];

function elements(node: Node): Element[] {
  const out: Element[] = [];
  const visit = (n: Node) => {
    if ('tagName' in n) out.push(n);
    if ('childNodes' in n) for (const c of n.childNodes) visit(c);
  };
  visit(node);
  return out;
}
const has = (el: Element, name: string) => el.attrs.some((a) => a.name === name);

/**
 * The HTML report's print form (what the PDF prints): on paper nothing can be clicked open,
 * so every section must already be open, and nothing may still be loading.
 */
describe('the HTML report for print', () => {
  const summary = makeSummary();
  const embed = (key: string) => artifacts.get(key);

  it('opens every <details>, loads images eagerly and leaves the filters out', () => {
    const all = elements(parse(renderHtmlReport(summary, { embed, print: true })));
    const details = all.filter((e) => e.tagName === 'details');
    expect(details.length).toBeGreaterThan(summary.results.length); // the cards and the stack traces
    expect(details.filter((d) => !has(d, 'open'))).toEqual([]);
    const images = all.filter((e) => e.tagName === 'img');
    expect(images.length).toBeGreaterThan(0);
    expect(images.filter((i) => has(i, 'loading'))).toEqual([]);
    expect(all.filter((e) => e.tagName === 'input' || e.tagName === 'nav')).toEqual([]);
  });

  it('the screen form is unchanged: passed cards collapsed, lazy images, filters', () => {
    const all = elements(parse(renderHtmlReport(summary, { embed })));
    expect(all.filter((e) => e.tagName === 'details' && !has(e, 'open')).length).toBeGreaterThan(0);
    expect(all.filter((e) => e.tagName === 'img').every((i) => has(i, 'loading'))).toBe(true);
    expect(all.filter((e) => e.tagName === 'input')).toHaveLength(3);
  });

  it('renderPdfReport hands the printer the print form and a title naming the run', async () => {
    const printed: Array<{ html: string; title: string }> = [];
    const bytes = await renderPdfReport(summary, async (html, title) => {
      printed.push({ html, title });
      return new TextEncoder().encode('%PDF-1.7 stand-in');
    }, { embed });
    expect(new TextDecoder().decode(bytes)).toBe('%PDF-1.7 stand-in');
    expect(printed).toHaveLength(1);
    expect(printed[0].title).toBe(pdfReportTitle(summary));
    expect(printed[0].title).toContain(summary.run_id);
    expect(printed[0].html).toBe(renderHtmlReport(summary, { embed, print: true }));
  });
});
