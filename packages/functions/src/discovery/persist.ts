import type { DiscoveredElement, DiscoveredFlow, DiscoverySession } from '@svc/core/contracts/discovery';
import type { Store } from '@svc/core/store/index';
import type { StoredPage } from '@svc/core/store/discovery';
import { randomUUID } from 'node:crypto';
import type { CrawlResult } from './crawler.ts';

/** The page graph stored on the session: nodes (url, type) and edges between them. */
export function pageGraph(result: CrawlResult, ids: Map<string, string>) {
  return {
    nodes: result.pages.map((p) => ({ id: ids.get(p.url), url: p.url, page_type: p.page_type, depth: p.depth })),
    edges: result.edges,
  };
}

/**
 * Writes a finished crawl: pages, elements, flows, then the session's graph, score and
 * insights. Whatever an earlier attempt of the same session left is removed first: on AWS,
 * Lambda delivers an asynchronous job again when its container died, and that attempt may
 * have stored part of its crawl (elements are keyed by page ids, which are new each time).
 */
export async function persistCrawl(store: Store, orgId: string, session: DiscoverySession, result: CrawlResult): Promise<DiscoverySession> {
  await store.discovery.clearChildren(orgId, session.id);
  const ids = new Map(result.pages.map((p) => [p.url, randomUUID()]));
  const pages: StoredPage[] = result.pages.map((p, i) => ({
    id: ids.get(p.url)!,
    discovery_session_id: session.id,
    url: p.url,
    page_type: p.page_type,
    screenshot_url: p.screenshot_url,
    element_count: p.elements.length,
    importance_score: p.importance_score,
    risk_score: p.risk_score,
    title: p.title,
    depth: p.depth,
    status: p.status ?? null,
    partial: p.partial ?? null,
    position: i,
  }));
  const elements: DiscoveredElement[] = result.pages.flatMap((p) =>
    p.elements.map((e) => ({ id: randomUUID(), page_id: ids.get(p.url)!, selector: e.selector, category: e.category, label: e.label, importance_score: e.importance_score, stability_score: e.stability_score })),
  );
  const flows: DiscoveredFlow[] = result.flows.map((f) => ({
    id: randomUUID(),
    discovery_session_id: session.id,
    name: f.name,
    flow_type: f.flow_type,
    steps: f.steps as unknown as Array<Record<string, unknown>>,
    complexity_score: f.complexity_score,
    validated: f.validated,
  }));
  await store.discovery.putPages(orgId, session.id, pages);
  await store.discovery.putElements(orgId, session.id, elements);
  await store.discovery.putFlows(orgId, session.id, flows);
  return store.discovery.updateSession(orgId, session.id, {
    status: 'completed',
    page_graph: pageGraph(result, ids),
    quality_score: result.quality.score,
    insights: { ...result.quality.insights, duration_ms: result.durationMs, ...(result.login && { login: result.login }) },
    completed_at: new Date().toISOString(),
  });
}

/** A session whose crawl failed or was never handed over: failed, with the error's first line, so nobody polls it forever. Never throws. */
export async function markSessionFailed(store: Store, orgId: string, sessionId: string, e: unknown): Promise<void> {
  const message = (e instanceof Error ? e.message : String(e)).split('\n')[0].slice(0, 500);
  await store.discovery.updateSession(orgId, sessionId, { status: 'failed', insights: { error: message }, completed_at: new Date().toISOString() }).catch(() => {});
}
