import type { GeneratedTest } from '../contracts/generated-test.ts';
import { keys } from './keys.ts';
import { queryPage, type StoreContext } from './context.ts';

/** How a generated test came about, and what its one execution showed. */
export type GenerationSource = 'plain-language' | 'story' | 'recording' | 'event' | 'spec' | 'flow';
export type GenerationOutcome = 'passed' | 'failed' | 'not_executed';

export interface GeneratedTestRecord extends GeneratedTest {
  source: GenerationSource;
  /** The one execution: passed, failed, or not executed (no browser / no base URL). */
  execution_status: GenerationOutcome;
  /** The test created in tests when the execution passed, else null. */
  test_id: string | null;
}

export type NewGeneratedTest = Omit<GeneratedTestRecord, 'id' | 'created_at' | 'github_pr_url'> & { github_pr_url?: string | null };

/** generated_tests: in the organization's partition, listed per project on gsi1 (newest first). */
export function generatedTestsRepo(ctx: StoreContext) {
  const { table } = ctx;
  const strip = (item: Record<string, unknown>): GeneratedTestRecord => {
    const { pk: _pk, sk: _sk, gsi1pk: _g, gsi1sk: _s, entity: _e, organization_id: _o, ...rest } = item;
    return rest as unknown as GeneratedTestRecord;
  };
  return {
    async create(orgId: string, input: NewGeneratedTest): Promise<GeneratedTestRecord> {
      const record: GeneratedTestRecord = { github_pr_url: null, ...input, id: ctx.newId(), created_at: ctx.clock.now().toISOString() };
      await table.put({ ...keys.generatedTest(orgId, record.id), entity: 'generated_test', organization_id: orgId, gsi1pk: keys.generatedTestsOfProject(record.project_id), gsi1sk: `GENTEST#${record.id}`, ...record }, { kind: 'notExists' });
      return record;
    },

    async get(orgId: string, id: string): Promise<GeneratedTestRecord | undefined> {
      const item = await table.get(keys.generatedTest(orgId, id));
      return item ? strip(item) : undefined;
    },

    async listByProject(projectId: string, limit: number, cursor?: string) {
      const page = await queryPage<Record<string, unknown>>(table, { index: 'gsi1', pk: keys.generatedTestsOfProject(projectId), limit, cursor, descending: true });
      return { items: page.items.map(strip), next_cursor: page.next_cursor };
    },
  };
}
