import type { DiscoveredElement, DiscoveredFlow, DiscoveredPage, DiscoverySession } from '../contracts/discovery.ts';
import { notFound } from '../errors.ts';
import { ConditionFailedError, type Item, type WriteOp } from '../ports/table.ts';
import { keys, stripLayout } from './keys.ts';
import { queryAll, queryPage, type StoreContext } from './context.ts';

/** Extra fields kept on a stored page beyond the contract (the crawler's facts about it). */
export type StoredPage = DiscoveredPage & { title?: string; depth?: number; status?: number | null; partial?: string | null; position?: number };
export type StoredElement = DiscoveredElement & { discovery_session_id: string };

const pad = (n: number) => String(n).padStart(6, '0');

/**
 * discovery_sessions and their pages, elements and flows. A session lives in its
 * organization's partition; its children in a partition keyed by organization AND
 * session, so no key ever crosses tenants.
 */
export function discoveryRepo(ctx: StoreContext) {
  const { table } = ctx;

  /** Writes in transactions of at most 25 operations (DynamoDB's limit per transaction). */
  async function transactAll(ops: WriteOp[]): Promise<void> {
    for (let i = 0; i < ops.length; i += 25) await table.transact(ops.slice(i, i + 25));
  }
  const writeAll = (items: Item[]) => transactAll(items.map((item) => ({ type: 'put', item })));

  return {
    async createSession(orgId: string, input: Pick<DiscoverySession, 'project_id' | 'name' | 'start_url' | 'mode' | 'strategy' | 'max_pages'> & { options?: Record<string, unknown> }): Promise<DiscoverySession> {
      const session: DiscoverySession & { organization_id: string } = {
        id: ctx.newId(),
        organization_id: orgId,
        project_id: input.project_id,
        name: input.name,
        status: 'pending',
        start_url: input.start_url,
        mode: input.mode,
        strategy: input.strategy,
        max_pages: input.max_pages,
        page_graph: { nodes: [], edges: [] },
        quality_score: null,
        insights: {},
        created_at: ctx.clock.now().toISOString(),
        completed_at: null,
      };
      await table.put({ ...keys.discoverySession(orgId, session.id), gsi1pk: keys.discoveriesOfProject(input.project_id), gsi1sk: session.id, entity: 'discovery_session', ...session }, { kind: 'notExists' });
      return session;
    },

    async getSession(orgId: string, id: string): Promise<DiscoverySession | undefined> {
      const item = await table.get(keys.discoverySession(orgId, id));
      return item ? stripLayout<DiscoverySession>(item) : undefined;
    },

    listSessions(orgId: string, limit: number, cursor?: string) {
      return queryPage<DiscoverySession>(table, { pk: `ORG#${orgId}`, skPrefix: 'DISCOVERY#', limit, cursor, descending: true });
    },

    /** A project's sessions, newest first (ids are time-ordered). */
    listForProject(projectId: string, limit: number, cursor?: string) {
      return queryPage<DiscoverySession>(table, { index: 'gsi1', pk: keys.discoveriesOfProject(projectId), limit, cursor, descending: true });
    },

    async updateSession(orgId: string, id: string, patch: Partial<Pick<DiscoverySession, 'status' | 'page_graph' | 'quality_score' | 'insights' | 'completed_at'>>): Promise<DiscoverySession> {
      try {
        return stripLayout<DiscoverySession>(await table.update({ key: keys.discoverySession(orgId, id), set: patch }));
      } catch (err) {
        if (err instanceof ConditionFailedError) throw notFound('discovery session');
        throw err;
      }
    },

    /** Removes a session's pages, elements and flows (what an interrupted earlier attempt stored). */
    async clearChildren(orgId: string, sessionId: string): Promise<void> {
      const items = await queryAll(table, { pk: keys.discoveryChildren(orgId, sessionId) });
      await transactAll(items.map((item) => ({ type: 'delete', key: { pk: item.pk, sk: item.sk } })));
    },

    async putPages(orgId: string, sessionId: string, pages: StoredPage[]): Promise<void> {
      await writeAll(pages.map((p, i) => ({ ...keys.discoveryChild(orgId, sessionId, `PAGE#${pad(p.position ?? i)}`), entity: 'discovered_page', ...p })));
    },

    async listPages(orgId: string, sessionId: string, limit: number, cursor?: string) {
      return queryPage<StoredPage>(table, { pk: keys.discoveryChildren(orgId, sessionId), skPrefix: 'PAGE#', limit, cursor });
    },

    async allPages(orgId: string, sessionId: string): Promise<StoredPage[]> {
      return (await queryAll(table, { pk: keys.discoveryChildren(orgId, sessionId), skPrefix: 'PAGE#' })).map((i) => stripLayout<StoredPage>(i));
    },

    async putElements(orgId: string, sessionId: string, elements: DiscoveredElement[]): Promise<void> {
      await writeAll(elements.map((e, i) => ({ ...keys.discoveryChild(orgId, sessionId, `ELEMENT#${e.page_id}#${pad(i)}`), entity: 'discovered_element', discovery_session_id: sessionId, ...e })));
    },

    async listElements(orgId: string, sessionId: string, pageId?: string): Promise<StoredElement[]> {
      return (await queryAll(table, { pk: keys.discoveryChildren(orgId, sessionId), skPrefix: pageId ? `ELEMENT#${pageId}#` : 'ELEMENT#' })).map((i) => stripLayout<StoredElement>(i));
    },

    async putFlows(orgId: string, sessionId: string, flows: DiscoveredFlow[]): Promise<void> {
      await writeAll(flows.map((f, i) => ({ ...keys.discoveryChild(orgId, sessionId, `FLOW#${pad(i)}`), entity: 'discovered_flow', ...f })));
    },

    async listFlows(orgId: string, sessionId: string): Promise<DiscoveredFlow[]> {
      return (await queryAll(table, { pk: keys.discoveryChildren(orgId, sessionId), skPrefix: 'FLOW#' })).map((i) => stripLayout<DiscoveredFlow>(i));
    },
  };
}

export type DiscoveryRepo = ReturnType<typeof discoveryRepo>;
