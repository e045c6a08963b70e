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
    entity: 'codebase_ingestion',
    ...ingestion,
  };
}

/** The update that records the worker's verdict (committed with the event's dedupe record). */
export function ingestionOutcome(orgId: string, id: string, outcome: Pick<CodebaseIngestion, 'status' | 'finished_at' | 'error' | 'summary' | 'surface_count' | 'partial'>): UpdateInput {
  return { key: keys.codebaseIngestion(orgId, id), set: { ...outcome } };
}

/** Codebase ingestions (knowledge worker): created by the API, finished by the worker. */
export function codebaseIngestionsRepo(ctx: StoreContext) {
  const { table } = ctx;
  return {
    newId: () => ctx.newId(),

    async create(orgId: string, ingestion: CodebaseIngestion): Promise<void> {
      await table.put(ingestionItem(orgId, ingestion), { kind: 'notExists' });
    },

    async get(orgId: string, id: string): Promise<CodebaseIngestion | undefined> {
      const item = await table.get(keys.codebaseIngestion(orgId, id));
      return item ? stripLayout<CodebaseIngestion>(item) : undefined;
    },

    /** A project's ingestions, newest first (the caller has checked the project is theirs). */
    listForProject(projectId: string, limit: number, cursor?: string) {
      return queryPage<CodebaseIngestion>(table, { index: 'gsi1', pk: keys.ingestionsOfProject(projectId), limit, cursor, descending: true });
    },

    /** The project's most recent analysed ingestion among its latest ones: its knowledge of its code. */
    async latestAnalyzed(projectId: string): Promise<CodebaseIngestion | undefined> {
      const page = await queryPage<CodebaseIngestion>(table, { index: 'gsi1', pk: keys.ingestionsOfProject(projectId), limit: LATEST_SCAN, descending: true });
      return page.items.find((i) => i.status === 'analyzed');
    },
  };
}

