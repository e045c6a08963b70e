import type { VisualBaselineRecord } from '../contracts/visual-baseline.ts';
import { ConditionFailedError, type Item } from '../ports/table.ts';
import { keys, stripLayout } from './keys.ts';
import { queryPage, type Page, type StoreContext } from './context.ts';

/** A stored baseline: the API's record plus the organization it belongs to. */
export type VisualBaselineItem = VisualBaselineRecord & { organization_id: string };

export interface VisualBaselinePut {
  project_id: string;
  test_id: string;
  name: string;
  screenshot_hash: string;
  metadata: Record<string, unknown>;
}

/** How often a put retries after losing a race with another put or a delete of the same baseline. */
const PUT_ATTEMPTS = 5;

/**
 * visual_baselines: one record per (organization, test, name), keyed by test and name so
 * a run reads its baseline with one strongly consistent GetItem and a test's baselines are
 * one Query. A pointer item keyed by the record's id (in the organization's partition)
 * serves reads by id; both are written and deleted together. Listed per project on gsi1.
 * The image itself is in Blobs under its hash (store/baseline-store.ts).
 */
export function visualBaselinesRepo(ctx: StoreContext) {
  const { table } = ctx;
  const toRecord = (item: Item): VisualBaselineItem => stripLayout<VisualBaselineItem>(item);

  const repo = {
    async getByName(orgId: string, testId: string, name: string): Promise<VisualBaselineItem | undefined> {
      const item = await table.get(keys.visualBaseline(orgId, testId, name));
      return item ? toRecord(item) : undefined;
    },

    async get(orgId: string, id: string): Promise<VisualBaselineItem | undefined> {
      const pointer = await table.get(keys.visualBaselineId(orgId, id));
      if (!pointer) return undefined;
      const record = await repo.getByName(orgId, String(pointer.test_id), String(pointer.name));
      return record?.id === id ? record : undefined;
    },

    /**
     * Records the baseline of (test, name), replacing the image of an existing one: its id
     * and created_at stay, screenshot_hash, metadata and updated_at change.
     */
    async put(orgId: string, input: VisualBaselinePut): Promise<VisualBaselineItem> {
      const key = keys.visualBaseline(orgId, input.test_id, input.name);
      for (let attempt = 0; attempt < PUT_ATTEMPTS; attempt++) {
        const now = ctx.clock.now().toISOString();
        const existing = await table.get(key);
        try {
          if (existing) {
            // Conditional on the id: a baseline deleted (and perhaps re-created) meanwhile is not resurrected.
            const item = await table.update({ key, set: { screenshot_hash: input.screenshot_hash, metadata: input.metadata, updated_at: now }, condition: { kind: 'equals', attr: 'id', value: String(existing.id) } });
            return toRecord(item);
          }
          const record: VisualBaselineItem = { id: ctx.newId(), organization_id: orgId, ...input, created_at: now, updated_at: now };
          await table.transact([
            { type: 'put', item: { ...key, entity: 'visual_baseline', gsi1pk: keys.visualBaselinesOfProject(orgId, input.project_id), gsi1sk: key.sk, ...record }, condition: { kind: 'notExists' } },
            { type: 'put', item: { ...keys.visualBaselineId(orgId, record.id), entity: 'visual_baseline_id', test_id: input.test_id, name: input.name }, condition: { kind: 'notExists' } },
          ]);
          return record;
        } catch (err) {
          if (!(err instanceof ConditionFailedError)) throw err;
          // Another writer got there first: read again and update what it wrote.
        }
      }
      throw new Error(`visual baseline "${input.name}" of test ${input.test_id}: still contended after ${PUT_ATTEMPTS} attempts`);
    },

    /** Deletes the record and its id pointer; undefined when there is no such baseline. */
    async delete(orgId: string, id: string): Promise<VisualBaselineItem | undefined> {
      const record = await repo.get(orgId, id);
      if (!record) return undefined;
      try {
        await table.transact([
          { type: 'delete', key: keys.visualBaseline(orgId, record.test_id, record.name), condition: { kind: 'equals', attr: 'id', value: id } },
          { type: 'delete', key: keys.visualBaselineId(orgId, id) },
        ]);
      } catch (err) {
        if (err instanceof ConditionFailedError) return undefined; // deleted by someone else meanwhile
        throw err;
      }
      return record;
    },

    /**
     * Baselines of the organization, of one test (a strongly consistent Query, by name) or
     * of one project (gsi1), in key order: newest test first.
     */
    async list(orgId: string, opts: { test_id?: string; project_id?: string; limit: number; cursor?: string }): Promise<Page<VisualBaselineItem>> {
      const page = opts.test_id
        ? await queryPage<VisualBaselineItem>(table, { pk: keys.visualBaselines(orgId), skPrefix: keys.visualBaselinesOfTest(opts.test_id), limit: opts.limit, cursor: opts.cursor })
        : opts.project_id
          ? await queryPage<VisualBaselineItem>(table, { index: 'gsi1', pk: keys.visualBaselinesOfProject(orgId, opts.project_id), limit: opts.limit, cursor: opts.cursor, descending: true })
          : await queryPage<VisualBaselineItem>(table, { pk: keys.visualBaselines(orgId), limit: opts.limit, cursor: opts.cursor, descending: true });
      // A test's baselines are all of one project; a page of them filtered by another is empty, not wrong.
      return opts.test_id && opts.project_id ? { ...page, items: page.items.filter((b) => b.project_id === opts.project_id) } : page;
    },
  };
  return repo;
}
