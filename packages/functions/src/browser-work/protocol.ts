import type { DiscoverySession } from '@svc/core/contracts/discovery';
import type { PageObservation } from '@svc/core/quality/page-probe';
import type { CrawlRequest } from '../discovery/runner.ts';
import type { CrawlResult } from '../discovery/crawler.ts';
import type { TestDefinition } from '@svc/core/contracts/steps';
import type { FinalPageRequest } from '../generation/final-page.ts';
import type { GenerationRunResult } from '../generation/execute-once.ts';
import type { Fingerprint } from '@svc/core/contracts/fingerprint';

/**
 * The browser function's events (infra/browser.ts): the work the API cannot do on AWS,
 * where it runs no browser. Plain JSON both ways; a Lambda invocation carries at most
 * 256 KB asynchronously and 6 MB synchronously.
 */
export type BrowserJob =
  /** A stored discovery session's crawl, invoked asynchronously: the results go to the table. */
  | { kind: 'discovery.session'; organization_id: string; session: DiscoverySession; request: CrawlRequest }
  /** POST /api/discover's small crawl, answered with its result. */
  | { kind: 'discovery.crawl'; request: CrawlRequest }
  /** The quality audit's page observation (core quality/page-probe.ts). */
  | { kind: 'quality.observe'; url: string; axe_tags?: string[]; timeout_ms: number }
  /**
   * A freshly generated UI test, run once to decide whether it may be kept (generation/finish.ts),
   * or POST /api/act's actions; with final_page the answer carries the last page and its PNG inline.
   */
  | { kind: 'generation.run'; organization_id: string; project_id: string; base_url?: string; test: TestDefinition; final_page?: FinalPageRequest }
  /** The visible elements of a page, for a model rewriting a generated test's sentences. */
  | { kind: 'generation.inspect'; organization_id: string; project_id: string; url: string }
  /**
   * A report printed to PDF. The HTML and the PDF pass through the artifacts bucket (keys
   * the API chose): a report with its screenshots can be larger than an invocation carries.
   */
  | { kind: 'report.pdf'; html_key: string; pdf_key: string; title: string };

export type BrowserJobKind = BrowserJob['kind'];

/** What each job answers. */
export interface BrowserJobValue {
  'discovery.session': null;
  'discovery.crawl': CrawlResult;
  'quality.observe': PageObservation;
  'generation.run': GenerationRunResult;
  'generation.inspect': Fingerprint[];
  'report.pdf': { bytes: number };
}

/**
 * A job's answer. Errors the caller must tell apart (a page that never loaded, axe tags
 * axe-core does not have) travel by name, since a Lambda's own error shape loses classes.
 */
export type BrowserJobOutcome<K extends BrowserJobKind = BrowserJobKind> =
  | { ok: true; value: BrowserJobValue[K] }
  | { ok: false; error: { name: string; message: string } };
