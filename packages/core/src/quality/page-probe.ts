import type { AxeScan } from '../contracts/accessibility.ts';

/**
 * The quality audit's port to a browser: opens one page in a fresh context and reports what
 * happened while it loaded. The audit's judgement (audit.ts and the checks beside it) is pure;
 * the adapter is functions' quality/chromium-probe.ts.
 */
export interface PageProbe {
  observe(url: string, options: ProbeOptions): Promise<PageObservation>;
}

export interface ProbeOptions {
  /** Run axe-core with these tags after load (absent: no accessibility scan). */
  axeTags?: string[];
  /** How long loading may take. */
  timeoutMs: number;
  signal?: AbortSignal;
}

export interface ObservedRequest {
  url: string;
  /** Playwright's resource type: document, script, stylesheet, image, fetch, xhr … */
  resource_type: string;
  /** HTTP status; null when no response came. */
  status: number | null;
  /** Network error text (net::ERR_…); absent when a response came. */
  failure?: string;
  transfer_bytes: number;
  /** Set-Cookie header values of the response. */
  set_cookies: string[];
}

export interface PageObservation {
  url: string;
  final_url: string;
  status: number | null;
  /** The main document's response headers, names lower-case. */
  headers: Record<string, string>;
  requests: ObservedRequest[];
  /** console.error messages and uncaught exceptions, in order. */
  console_errors: string[];
  /** Console messages about mixed content (Chromium blocks most of it before any request is made). */
  mixed_content_messages: string[];
  timing: {
    ttfb_ms: number | null;
    dom_content_loaded_ms: number | null;
    load_ms: number | null;
    lcp_ms: number | null;
    cls: number;
  };
  axe?: AxeScan;
}

/** The page could not be opened at all (DNS, refused connection, timeout): the audit cannot judge it. */
export class PageLoadError extends Error {
  override name = 'PageLoadError';
}
