import type { Store } from '@svc/core/store/index';
import type { Blobs } from '@svc/core/ports/blobs';
import type { Logger } from '@svc/core/ports/logger';
import type { PlaywrightDriver } from '../execution/browser/playwright-driver.ts';
import { crawl } from '../discovery/crawler.ts';
import { runDiscoverySession } from '../discovery/runner.ts';
import { chromiumProbe } from '../quality/chromium-probe.ts';
import type { GenerationExecutor } from '../generation/execute-once.ts';
import { chromiumPdfPrinter } from '../reporting/chromium-pdf.ts';
import type { BrowserJob, BrowserJobOutcome } from './protocol.ts';

export interface BrowserWorkDeps {
  store: Store;
  blobs?: Blobs;
  logger: Logger;
  /** The container's browser, launched on first use. */
  driver: () => Promise<PlaywrightDriver>;
  /** Runs generated tests as the local server does (the project's environment and secrets, its own browser per test). */
  generation: GenerationExecutor;
}

/**
 * Does one browser job with the same code the local runtime runs in its own process
 * (discovery's runner and crawler, the audit's Chromium probe). A job's failure is its
 * outcome, never a thrown error, so the caller sees the error's name and message.
 */
export async function performBrowserJob(job: BrowserJob, deps: BrowserWorkDeps): Promise<BrowserJobOutcome> {
  try {
    switch (job.kind) {
      case 'discovery.session':
        // Records its own failure on the session (status failed, the error in insights).
        await runDiscoverySession(deps, job.organization_id, job.session, job.request);
        return { ok: true, value: null };
      case 'discovery.crawl':
        return { ok: true, value: await crawl(await deps.driver(), job.request) };
      case 'quality.observe':
        return { ok: true, value: await chromiumProbe(deps.driver).observe(job.url, { axeTags: job.axe_tags, timeoutMs: job.timeout_ms }) };
      case 'generation.run':
        return { ok: true, value: await deps.generation.run(job.test, { organizationId: job.organization_id, projectId: job.project_id, ...(job.base_url ? { baseUrl: job.base_url } : {}), ...(job.final_page ? { finalPage: job.final_page } : {}) }) };
      case 'generation.inspect': {
        const batch = deps.generation.batch();
        try {
          return { ok: true, value: await deps.generation.inspect(job.url, { organizationId: job.organization_id, projectId: job.project_id, batch }) };
        } finally {
          await deps.generation.release(batch);
        }
      }
      case 'report.pdf': {
        if (!deps.blobs) throw new Error('the browser function has no artifacts bucket to read the report from');
        const html = await deps.blobs.get(job.html_key);
        if (!html) throw new Error(`no report to print at ${job.html_key}`);
        const pdf = await chromiumPdfPrinter(deps.driver)(new TextDecoder().decode(html.body), job.title);
        await deps.blobs.put(job.pdf_key, pdf, 'application/pdf');
        return { ok: true, value: { bytes: pdf.byteLength } };
      }
      default:
        return { ok: false, error: { name: 'UnknownBrowserJob', message: `no browser job of kind ${JSON.stringify((job as { kind?: unknown }).kind)}` } };
    }
  } catch (err) {
    const e = err instanceof Error ? err : new Error(String(err));
    deps.logger.warn?.('browser job failed', { kind: job.kind, error: e.message.split('\n')[0] });
    return { ok: false, error: { name: e.name, message: e.message } };
  }
}
