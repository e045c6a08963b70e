import type { CodebaseIngestion } from '../contracts/codebase-ingestions.ts';
import type { UpdateInput } from '../ports/table.ts';
import { keys, stripLayout } from './keys.ts';
import { queryPage, type StoreContext } from './context.ts';

/** How many of a project's latest ingestions are looked through for its latest analysed one. */
const LATEST_SCAN = 50;

/** The item of an ingestion: its organization's partition, and the project's index ordered by time. */
export function ingestionItem(orgId: string, ingestion: CodebaseIngestion) {
  return {
    ...keys.codebaseIngestion(orgId, ingestion.id),
    gsi1pk: keys.ingestionsOfProject(ingestion.project_id),
    gsi1sk: `${ingestion.created_at}#${ingestion.id}`,
    // While queued it also sits in one cross-organization partition, so a restart finds it.
    ...(ingestion.status === 'queued' && { gsi2pk: keys.queuedIngestions, gsi2sk: `${ingestion.created_at}#${orgId}#${ingestion.id}` }),
    entity: 'codebase_ingestion',
    ...ingestion,
  };
}

/** The update that records the worker's verdict (committed with the event's dedupe record). */
export function ingestionOutcome(orgId: string, id: string, outcome: Pick<CodebaseIngestion, 'status' | 'finished_at' | 'error' | 'summary' | 'surface_count' | 'partial'>): UpdateInput {
  return { key: keys.codebaseIngestion(orgId, id), set: { ...outcome }, remove: ['gsi2pk', 'gsi2sk'] };
}

/** Codebase ingestions (knowledge worker): created by the API, finished by the worker. */
export function codebaseIngestionsRepo(ctx: StoreContext) {
  const { table } = ctx;
  return {
    newId: () => ctx.newId(),

    async create(orgId: string, ingestion: CodebaseIngestion): Promise<void> {
      await table.put(ingestionItem(orgId, ingestion), { kind: 'notExists' });
    },

    /** Records a verdict outside the worker (the event could not be published: failed). */
    async decide(orgId: string, id: string, verdict: Parameters<typeof ingestionOutcome>[2]): Promise<void> {
      await table.update(ingestionOutcome(orgId, id, verdict));
    },

    async get(orgId: string, id: string): Promise<CodebaseIngestion | undefined> {
      const item = await table.get(keys.codebaseIngestion(orgId, id));
      return item ? stripLayout<CodebaseIngestion>(item) : undefined;
    },

    /** A project's ingestions, newest first (the caller has checked the project is theirs). */
    listForProject(projectId: string, limit: number, cursor?: string) {
      return queryPage<CodebaseIngestion>(table, { index: 'gsi1', pk: keys.ingestionsOfProject(projectId), limit, cursor, descending: true });
    },

    /**
     * Ingestions still queued, oldest first, across organizations, created before `before`
     * (ISO): what a restarted local runtime announces again (its queue lived in memory).
     */
    async listQueued(before: string, limit = 100): Promise<Array<{ orgId: string; ingestion: CodebaseIngestion }>> {
      const page = await table.query({ index: 'gsi2', pk: keys.queuedIngestions, skTo: `${before}#`, limit });
      return page.items.map((item) => ({ orgId: String(item.gsi2sk).split('#')[1], ingestion: stripLayout<CodebaseIngestion>(item) }));
    },

    /** The project's most recent analysed ingestion among its latest ones: its knowledge of its code. */
    async latestAnalyzed(projectId: string): Promise<CodebaseIngestion | undefined> {
      const page = await queryPage<CodebaseIngestion>(table, { index: 'gsi1', pk: keys.ingestionsOfProject(projectId), limit: LATEST_SCAN, descending: true });
      return page.items.find((i) => i.status === 'analyzed');
    },
  };
}

