import type { FlowOrigin } from '../flows/expand-flows.ts';
import type { UiStep, UiAssertion, ApiRequestStep, DbQueryStep, DbConnection, TestDefinition, StepType, Locator, ExtractField } from '../contracts/steps.ts';
import type { VisualOutcome } from '../visual/baseline-store.ts';
import type { AccessibilityOutcome, AxeScan } from '../contracts/accessibility.ts';
import type { BrowserSettings } from '../contracts/browser-settings.ts';
import type { Fingerprint } from '../contracts/fingerprint.ts';

/**
 * Execution ports and results. The runner (runner.ts) is core logic; the browser and SQL
 * drivers are adapters in packages/functions; HTTP uses the standard fetch.
 */

/** One context object per step (CONVENTIONS 6): cancellation, deadline, logging. */
export interface StepContext {
  signal: AbortSignal;
  /** Epoch ms by which the step must finish; drivers pass the remaining time as their timeout. */
  deadline: number;
  log(level: 'debug' | 'info' | 'warn' | 'error', message: string): void;
}

/**
 * Why a step failed. Failures are data: the runner maps them to result statuses, and
 * healing only ever considers 'locator' failures (a timeout or an assertion is never healed).
 */
export type FailureKind =
  | 'locator' // the element was not found, or not exactly one matched
  | 'timeout' // the step or test ran out of time
  | 'assertion' // the app answered, but not as asserted
  | 'navigation' // page load failed: unreachable host, TLS, DNS
  | 'network' // an HTTP request failed below HTTP: refused, reset, TLS
  | 'http' // the response could not be used as asked (e.g. HTML where JSON was expected)
  | 'database' // connection refused, bad SQL, constraint violation
  | 'configuration' // missing environment variable, model not configured, bad variable
  | 'unsupported' // a step the driver cannot perform
  | 'cancelled'
  | 'internal';

export class StepFailure extends Error {
  constructor(
    readonly kind: FailureKind,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'StepFailure';
  }
}

// ---------------------------------------------------------------- browser port

export interface UiSessionOptions {
  baseUrl?: string;
  /** Record a Playwright trace; kept only when the test fails. */
  trace: boolean;
  viewport?: { width: number; height: number };
  /** The test's device, viewport, locale, time zone and media preferences, variables filled in. */
  browser?: BrowserSettings;
}

export interface UiDriver {
  /** A fresh, isolated browser context for one test. */
  openSession(options: UiSessionOptions): Promise<UiSession>;
  /** Closes the browser; no Chromium process may outlive this. */
  close(): Promise<void>;
}

export interface UiDiagnostics {
  consoleErrors: string[];
  failedRequests: Array<{ url: string; method: string; failure: string }>;
  /** Pages the main frame was on, in order (origin, path and fragment; no query). */
  pagesVisited: string[];
}

/** What a visual assertion captures. */
export interface VisualCapture {
  /** One element (located strictly); default the viewport. */
  selector?: Locator;
  fullPage?: boolean;
  /** Elements painted over before capturing. */
  mask?: Locator[];
}

/** What an accessibility check runs axe-core on, and with which rules. */
export interface AccessibilityScanRequest {
  /** One element (located strictly, its fingerprint read for healing); default the whole page. */
  selector?: Locator;
  /** Elements left out (each locator may match any number, none included). */
  exclude?: Locator[];
  /** axe rule tags to run. */
  tags: string[];
  /** axe rule ids not to run. */
  disableRules: string[];
}

export interface UiSession {
  /** Performs a step; throws StepFailure. Returns the fingerprint of the element acted on, if any. */
  perform(step: UiStep, ctx: StepContext): Promise<{ fingerprint?: Fingerprint; screenshot?: Uint8Array }>;
  /** Checks an assertion; throws StepFailure('assertion' | 'locator' | 'timeout'). */
  check(assertion: UiAssertion, ctx: StepContext): Promise<{ fingerprint?: Fingerprint }>;
  /** A PNG of the page (timeoutMs: give up after it; default the driver's). */
  screenshot(options?: { fullPage?: boolean; timeoutMs?: number }): Promise<Uint8Array>;
  /**
   * Stops a navigation still in progress (a goto that ran out of time), so what is captured
   * of a failed test — screenshot, HTML — is the page as it is, not a wait for one that may
   * never load. Optional.
   */
  stopLoading?(): Promise<void>;
  /** Screenshots this session asked for and did not take because the run's cap was reached (on-demand steps and the failure screenshot). Optional. */
  screenshotsDropped?(): number;
  /** A PNG for a visual comparison: animations stopped, caret hidden, masks painted; with the element's fingerprint when one was captured. Throws StepFailure. */
  capture(options: VisualCapture, ctx: StepContext): Promise<{ png: Uint8Array; fingerprint?: Fingerprint }>;
  /** Runs axe-core on the current page without touching the page's own scripts; throws StepFailure ('locator' when the scoped element is missing, 'configuration' for an unknown tag or rule). */
  accessibility(scan: AccessibilityScanRequest, ctx: StepContext): Promise<{ scan: AxeScan; fingerprint?: Fingerprint }>;
  /** Fingerprints of every visible element on the current page (healing candidates). */
  pageFingerprints(): Promise<Fingerprint[]>;
  /**
   * Waits (as a locate does) until one of the locators matches an element; the index of the
   * first in the list that does, -1 when none did in time or a selector is bad (the step's
   * own locate then says what is wrong). Used with a known fix of a locator.
   */
  firstPresent?(selectors: Locator[], ctx: StepContext): Promise<number>;
  url(): string;
  /**
   * Reads one field of an extract step: its element's visible text (or `attribute`), with
   * the element's fingerprint (for healing) — or, with `all`, every match as a list (no
   * fingerprint: a list is not one element). Throws StepFailure('locator') naming the
   * field when its element is missing. One field per call, so the runner can heal each
   * field's locator as it heals a step's. Optional: a driver without it fails extract
   * steps as unsupported.
   */
  extractField?(name: string, field: ExtractField, ctx: StepContext): Promise<{ value: ExtractedValue; fingerprint?: Fingerprint }>;
  /** The page's visible content as an accessibility snapshot (text), cut at maxChars; for a model extracting from it. */
  snapshot?(maxChars: number, ctx: StepContext): Promise<PageSnapshot>;
  /** The page's HTML as it is now (the DOM serialised), cut at maxChars; optional (the runner keeps it when a test fails). */
  html?(maxChars: number): Promise<PageHtml>;
  /** The page's title (optional: only callers that report the page's state, e.g. POST /api/act, need it). */
  title?(): Promise<string>;
  diagnostics(): UiDiagnostics;
  /**
   * Waits until the page has had no request in flight for quietMs (at most maxMs), so what
   * it does after loading — a fetch, then an error thrown with its answer — reaches the
   * diagnostics before the session ends. Optional.
   */
  settle?(o: { quietMs: number; maxMs: number }): Promise<void>;
  /** Stops tracing; returns the trace zip when keep is true. */
  stopTrace(keep: boolean): Promise<Uint8Array | undefined>;
  close(): Promise<void>;
}

/** One extracted field: text or an attribute (null: the element has no such attribute), or a list of them. */
export type ExtractedValue = string | null | Array<string | null>;

export interface PageHtml {
  html: string;
  /** The page's URL when it was read. */
  url: string;
  /** Characters before the cut. */
  chars: number;
  truncated: boolean;
}

export interface PageSnapshot {
  /** The accessibility snapshot (roles, names, visible text), cut at the cap. */
  text: string;
  /** Characters before the cut. */
  chars: number;
  truncated: boolean;
}

// ---------------------------------------------------------------- SQL port

export interface SqlResult {
  rows: Array<Record<string, unknown>>;
  /** Rows returned, or rows affected for a statement without a result set. */
  row_count: number;
  columns: string[];
  /**
   * Columns the database says hold text (char, varchar, text, enum): their values compare
   * as text, so '00501' is not 501 and '1.10' is not 1.1. Absent when the driver cannot tell.
   */
  text_columns?: string[];
}

export interface SqlDriver {
  /** Runs one statement on the database at `url`; throws StepFailure('database' | 'timeout'). */
  query(connection: { driver: DbConnection['driver']; url: string }, statement: string, params: DbQueryStep['params'], ctx: StepContext): Promise<SqlResult>;
  close(): Promise<void>;
}

// ---------------------------------------------------------------- HTTP (API tests)

export interface HttpResult {
  status: number;
  headers: Record<string, string>;
  /** Parsed JSON when the response is JSON, else the text. */
  body: unknown;
  text: string;
  duration_ms: number;
}

export type HttpExchange = (step: ApiRequestStep, ctx: StepContext & { baseUrl?: string }) => Promise<HttpResult>;

// ---------------------------------------------------------------- artifacts

export interface ArtifactSink {
  /** Stores an artifact of the run; returns its key (relative path under the run). */
  put(name: string, body: Uint8Array | string, contentType: string): Promise<string>;
}

// ---------------------------------------------------------------- results

export type ExecStatus = 'passed' | 'failed' | 'skipped' | 'healed';

export interface StepResult {
  index: number;
  type: StepType;
  name?: string;
  /** Human-readable one-liner, e.g. click "#buy" */
  description: string;
  status: 'passed' | 'failed' | 'skipped';
  duration_ms: number;
  error?: { kind: FailureKind; message: string };
  screenshot?: string;
  /** Set when this step's locator was healed (issue: self-healing). */
  healed?: { original: string; healed: string; confidence: number };
  /** An extract step's fields whose locators were healed, in field order (an extract step reads one element per field, so it has these instead of `healed`). */
  healed_fields?: Array<{ field: string; original: string; healed: string; confidence: number }>;
  /**
   * An extract step's result (its JSON at most EXTRACT_MAX_RESULT_CHARS: a larger one fails
   * the step), as kept: secret values and fields named like credentials masked (mask-extracted.ts).
   * The one record of what was extracted: reports, the dashboard and act's answer read it.
   */
  extracted?: unknown;
  /** The variable an extract step saved its value as (`save_as`), for readers of `extracted`. */
  save_as?: string;
  /** Set when the step came from a flow (a `use` step expanded): which flow and which of its steps (1-based). */
  origin?: FlowOrigin;
}

/** One of a test's trailing assertions (its `assertions`, checked after the steps), in order. */
export interface AssertionResult {
  /** 0-based position among the test's assertions (reports say `assertion 1` for 0). */
  index: number;
  name?: string;
  /** Human-readable one-liner, e.g. expect $.total = 3 */
  description: string;
  /** skipped: a step failed first, or an earlier assertion ran out of time. */
  status: 'passed' | 'failed' | 'skipped';
  duration_ms: number;
  error?: { kind: FailureKind; message: string };
  /** Set when this assertion's locator was healed (as a step's `healed`). */
  healed?: { original: string; healed: string; confidence: number };
}

export interface TestExecutionResult {
  test_id: string;
  name: string;
  type: TestDefinition['type'];
  status: ExecStatus;
  started_at: string;
  finished_at: string;
  duration_ms: number;
  steps: StepResult[];
  assertions_passed: number;
  assertions_failed: number;
  /** Each trailing assertion's outcome, in order (absent when the test has none). */
  assertion_results?: AssertionResult[];
  error_message?: string;
  stack_trace?: string;
  failure_kind?: FailureKind;
  failed_step?: number;
  screenshots: string[];
  /** Screenshots not taken because the run reached its cap (MAX_SCREENSHOTS); absent when none. */
  screenshots_dropped?: number;
  trace?: string;
  /** A failed UI test: the page's HTML when it failed (artifact key, `failure.html`). */
  dom_snapshot?: string;
  console_errors: string[];
  failed_requests: UiDiagnostics['failedRequests'];
  /** UI tests: pages the browser was on (coverage reads them). */
  pages_visited?: string[];
  /** Latest fingerprint per step index (an extract step's fields: `<index>.<field>`), for healing. */
  fingerprints: Record<string, Fingerprint>;
  /** Each visual assertion's outcome, in order (absent when the test has none). */
  visual?: VisualOutcome[];
  /** Each accessibility assertion's outcome, in order (absent when the test has none). */
  accessibility?: AccessibilityOutcome[];
  metadata: Record<string, unknown>;
}

export interface RunSummary {
  run_id: string;
  name: string;
  base_url?: string;
  started_at: string;
  finished_at: string;
  duration_ms: number;
  workers: number;
  total: number;
  passed: number;
  failed: number;
  skipped: number;
  healed: number;
  results: TestExecutionResult[];
  /**
   * The run did not end on its own, and did not pass whatever its tests did: `interrupted`
   * (svc run stopped by Ctrl-C or SIGTERM; it can be resumed), `cancelled` (on the server),
   * `running` (a report of a run as it stands). Absent: it ran to its end.
   */
  unfinished?: 'interrupted' | 'cancelled' | 'running';
  /**
   * Why the run failed as a whole — an error, or a limit that stopped it (the run's status
   * `failed`), whatever its tests did; its tests not run are skipped. Absent: it did not.
   */
  error?: string;
}
