import { GetFunctionConfigurationCommand, InvokeCommand, type LambdaClient } from '@aws-sdk/client-lambda';
import { AppError } from '@svc/core/errors';
import { PageLoadError, type PageProbe } from '@svc/core/quality/page-probe';
import { randomUUID } from 'node:crypto';
import type { Blobs } from '@svc/core/ports/blobs';
import type { ReportPdfPrinter } from '@svc/core/reporting/pdf-report';
import type { DiscoveryRunner } from '../discovery/runner.ts';
import type { GenerationExecutor } from '../generation/execute-once.ts';
import type { BrowserJob, BrowserJobKind, BrowserJobOutcome, BrowserJobValue } from './protocol.ts';

/** Calls the browser function: waits for a job's answer, or hands a job over without waiting. */
export interface BrowserWorkInvoker {
  call<K extends BrowserJobKind>(job: Extract<BrowserJob, { kind: K }>): Promise<BrowserJobValue[K]>;
  enqueue(job: BrowserJob): Promise<void>;
}

/**
 * The browser function through Lambda's Invoke API: RequestResponse for answers,
 * Event (Lambda's own queue, which retries twice) for a discovery session's crawl, which
 * outlives the API's response. A job's own failure comes back as its outcome and is
 * thrown here under its name; the function failing (timeout, out of memory, a crash)
 * is an UNAVAILABLE error naming it.
 */
export function lambdaBrowserWork(o: { client: LambdaClient; functionName: string }): BrowserWorkInvoker {
  const payload = (job: BrowserJob) => new TextEncoder().encode(JSON.stringify(job));
  /** Lambda refusing the call (no such function, throttled, denied) is the service being unavailable, not the request's fault. */
  const invoke = async (type: 'RequestResponse' | 'Event', job: BrowserJob) => {
    try {
      return await o.client.send(new InvokeCommand({ FunctionName: o.functionName, InvocationType: type, Payload: payload(job) }));
    } catch (err) {
      throw new AppError('UNAVAILABLE', `the browser function ${o.functionName} could not be invoked: ${(err as Error).name}: ${(err as Error).message}`);
    }
  };
  return {
    async call(job) {
      const res = await invoke('RequestResponse', job);
      const text = res.Payload ? new TextDecoder().decode(res.Payload) : '';
      if (res.FunctionError) {
        const detail = safeJson(text) as { errorType?: string; errorMessage?: string } | undefined;
        throw new AppError('UNAVAILABLE', `the browser function failed (${res.FunctionError}): ${detail?.errorMessage ?? (text.slice(0, 300) || 'no detail')}`);
      }
      const outcome = safeJson(text) as BrowserJobOutcome | undefined;
      if (!outcome || typeof outcome.ok !== 'boolean') throw new AppError('UNAVAILABLE', `the browser function answered something that is not a job outcome: ${text.slice(0, 200)}`);
      if (!outcome.ok) throw namedError(outcome.error);
      return outcome.value as never;
    },
    async enqueue(job) {
      const res = await invoke('Event', job);
      if (res.StatusCode !== 202) throw new AppError('UNAVAILABLE', `the browser function did not accept the job (status ${res.StatusCode})`);
    },
  };
}

/** Discovery through the browser function: sessions crawl there and write to the table; nothing runs here. */
export function remoteDiscoveryRunner(invoker: BrowserWorkInvoker, allowedHosts: string[]): DiscoveryRunner {
  return {
    allowedHosts,
    crawlNow: (request) => invoker.call({ kind: 'discovery.crawl', request }),
    start: (orgId, session, request) => invoker.enqueue({ kind: 'discovery.session', organization_id: orgId, session, request }),
    // The crawls are the function's: this container has none to wait for or stop.
    settled: async () => {},
    close: async () => {},
  };
}

/** The quality audit's probe through the browser function. */
export function remoteProbe(invoker: BrowserWorkInvoker): PageProbe {
  return {
    observe: (url, options) => invoker.call({ kind: 'quality.observe', url, timeout_ms: options.timeoutMs, ...(options.axeTags ? { axe_tags: options.axeTags } : {}) }),
  };
}

/**
 * Generated tests on AWS: UI tests run in the browser function, API and database tests here
 * (`local`, the API function's own executor, which has no browser). The function launches a
 * browser per test, so a batch shares nothing there; `batch`/`release` are the local ones.
 */
export function remoteGenerationExecutor(invoker: BrowserWorkInvoker, local: GenerationExecutor): GenerationExecutor {
  return {
    browser: true,
    run: (test, where) =>
      test.type === 'ui'
        ? invoker.call({ kind: 'generation.run', organization_id: where.organizationId, project_id: where.projectId, test, ...(where.baseUrl ? { base_url: where.baseUrl } : {}), ...(where.finalPage ? { final_page: where.finalPage } : {}) })
        : local.run(test, where),
    inspect: (url, where) => invoker.call({ kind: 'generation.inspect', organization_id: where.organizationId, project_id: where.projectId, url }),
    batch: () => local.batch(),
    release: (batch) => local.release(batch),
    close: () => local.close(),
  };
}

/**
 * PDF reports on AWS: the HTML goes to the artifacts bucket, the browser function prints it
 * and puts the PDF beside it, and both are deleted once read. A printing failure keeps its
 * message (the function's printer says UNAVAILABLE when it runs out of time).
 */
export function remotePdfPrinter(invoker: BrowserWorkInvoker, blobs: Blobs): ReportPdfPrinter {
  return async (html, title) => {
    const id = randomUUID();
    const htmlKey = `reports/print/${id}.html`;
    const pdfKey = `reports/print/${id}.pdf`;
    await blobs.put(htmlKey, html, 'text/html; charset=utf-8');
    try {
      await invoker.call({ kind: 'report.pdf', html_key: htmlKey, pdf_key: pdfKey, title });
      const pdf = await blobs.get(pdfKey);
      if (!pdf) throw new AppError('UNAVAILABLE', 'the browser function printed the report but its PDF is not in the bucket');
      return new Uint8Array(pdf.body);
    } catch (err) {
      if (err instanceof AppError) throw err;
      throw new AppError('UNAVAILABLE', `the report could not be printed: ${(err as Error).message.split('\n')[0]}`);
    } finally {
      await Promise.allSettled([blobs.delete(htmlKey), blobs.delete(pdfKey)]);
    }
  };
}

function namedError(e: { name: string; message: string }): Error {
  const error = e.name === 'PageLoadError' ? new PageLoadError(e.message) : new Error(e.message);
  if (e.name !== 'PageLoadError') error.name = e.name; // AxeOptionsError is told apart by name (routes/quality-audit.ts)
  return error;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The health of the browser function: it exists and is ready to be invoked (GetFunctionConfiguration). */
export function browserFunctionHealth(o: { client: LambdaClient; functionName: string }) {
  return async () => {
    const c = await o.client.send(new GetFunctionConfigurationCommand({ FunctionName: o.functionName }));
    const ready = c.State === 'Active' && (c.LastUpdateStatus ?? 'Successful') === 'Successful';
    return ready
      ? { status: 'ok' as const, detail: `Lambda ${c.FunctionName ?? o.functionName}, Chromium launched per job`, ...(c.Runtime ? { version: c.Runtime } : {}) }
      : { status: 'down' as const, detail: `Lambda ${c.FunctionName ?? o.functionName} is ${c.State ?? 'in an unknown state'}${c.StateReason ? `: ${c.StateReason}` : ''}` };
  };
}
