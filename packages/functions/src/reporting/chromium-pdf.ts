import { AppError } from '@svc/core/errors';
import type { ReportPdfPrinter } from '@svc/core/reporting/pdf-report';
import type { PlaywrightDriver } from '../execution/browser/playwright-driver.ts';
import { raceAbort } from '../shared/race-abort.ts';

export interface ChromiumPdfOptions {
  /** Longest one PDF may take, its wait for a turn included (default 60 s). */
  timeoutMs?: number;
}

/**
 * The ReportPdfPrinter on Chromium's own print (`page.pdf()`): A4, backgrounds printed,
 * the title in each page's header and "page n of m" in its footer. One PDF at a time per
 * printer, the others queued: a print lays out the whole report (screenshots included) in
 * one renderer, and several at once on a small machine would slow the runs sharing the
 * browser more than a queue slows the PDFs. A PDF not ready within `timeoutMs` fails with
 * UNAVAILABLE and gives its turn back (its page is closed), so one report cannot stall
 * the queue.
 */
export function chromiumPdfPrinter(driver: () => Promise<PlaywrightDriver>, options: ChromiumPdfOptions = {}): ReportPdfPrinter {
  const timeoutMs = options.timeoutMs ?? 60_000;
  let queue: Promise<unknown> = Promise.resolve();
  return (html, title) => {
    const deadline = AbortSignal.timeout(timeoutMs);
    // A request that timed out while waiting is skipped when its turn comes.
    const turn = queue.then(() => (deadline.aborted ? new Uint8Array() : printOnce(driver, html, title, deadline)));
    queue = turn.catch(() => {});
    return raceAbort(turn, deadline, () => new AppError('UNAVAILABLE', `the PDF was not ready within ${timeoutMs >= 1000 ? `${Math.round(timeoutMs / 1000)} s` : `${timeoutMs} ms`} (one PDF is printed at a time; a report with many large screenshots takes longest): try again, or ask for format html`));
  };
}

async function printOnce(driver: () => Promise<PlaywrightDriver>, html: string, title: string, deadline: AbortSignal): Promise<Uint8Array<ArrayBuffer>> {
  let session: Awaited<ReturnType<PlaywrightDriver['openSession']>>;
  try {
    session = await (await driver()).openSession({ trace: false });
  } catch (e) {
    throw new AppError('UNAVAILABLE', `could not open Chromium to print the PDF: ${firstLine(e)}`);
  }
  // Past the deadline the page goes: page.pdf() has no timeout of its own, and closing is what stops it.
  const close = () => void session.close().catch(() => {});
  deadline.addEventListener('abort', close, { once: true });
  try {
    deadline.throwIfAborted(); // the cap passed while Chromium started: print nothing
    const page = session.page;
    // The report is self-contained (inline CSS, data: images) and its CSP forbids fetching;
    // refusing every request as well keeps a printer that loads HTML from ever reaching out.
    await page.route('**/*', (route) => route.abort());
    await page.emulateMedia({ media: 'print', colorScheme: 'light' });
    await page.setContent(html, { waitUntil: 'load' });
    const pdf = await page.pdf({
      format: 'A4',
      printBackground: true,
      displayHeaderFooter: true,
      headerTemplate: `<div style="${MARGIN_TEXT}">${escapeHtml(title)}</div>`,
      footerTemplate: `<div style="${MARGIN_TEXT} text-align: right;">page <span class="pageNumber"></span> of <span class="totalPages"></span></div>`,
      margin: { top: '16mm', bottom: '16mm', left: '12mm', right: '12mm' },
    });
    return new Uint8Array(pdf);
  } catch (e) {
    if (deadline.aborted) throw e; // the deadline's error is the one reported
    throw new AppError('UNAVAILABLE', `Chromium could not print the PDF: ${firstLine(e)}`);
  } finally {
    deadline.removeEventListener('abort', close);
    await session.close().catch(() => {});
  }
}

/**
 * Header and footer are rendered apart from the page, without its styles: they need their
 * own font and size. No double quotes: the text goes into a style="…" attribute.
 */
const MARGIN_TEXT = 'width: 100%; margin: 0 12mm; font-size: 9px; font-family: system-ui, sans-serif; color: #5f6b7a;';

const firstLine = (e: unknown) => (e instanceof Error ? e.message : String(e)).split('\n')[0];

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);
}
