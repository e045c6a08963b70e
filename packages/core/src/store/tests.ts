import type { z } from 'zod';
import type { TestSchema } from '../contracts/test.ts';
import { ConditionFailedError } from '../ports/table.ts';
import { keys, stripLayout } from './keys.ts';
import { queryPage, type StoreContext } from './context.ts';

export type TestRecord = z.output<typeof TestSchema>;
/** A new test; `parameter_sets` defaults to none. */
export type NewTest = Omit<TestRecord, 'id' | 'status' | 'created_at' | 'updated_at' | 'parameter_sets' | 'quarantine'> & Partial<Pick<TestRecord, 'parameter_sets'>>;

/** A stored test as read: tests stored before parameter sets (or quarantine) existed have none. */
function asTest(item: Record<string, unknown>): TestRecord {
  const { organization_id: _org, ...test } = stripLayout<TestRecord & { organization_id?: string }>(item);
  return { ...test, parameter_sets: test.parameter_sets ?? [], quarantine: test.quarantine ?? null };
}

/**
 * Tests are keyed by organization (so a test id from another tenant resolves to
 * nothing) and indexed by project on gsi1 in creation order.
 */
export function testsRepo(ctx: StoreContext) {
  const { table } = ctx;
  return {
    async create(orgId: string, input: NewTest): Promise<TestRecord> {
      const now = ctx.clock.now().toISOString();
      const { quarantine: _none, ...test }: TestRecord = { ...input, parameter_sets: input.parameter_sets ?? [], id: ctx.newId(), status: 'pending', quarantine: null, created_at: now, updated_at: now };
      await table.put(
        { ...keys.test(orgId, test.id), entity: 'test', organization_id: orgId, gsi1pk: keys.testsOfProject(test.project_id), gsi1sk: `TEST#${test.id}`, ...test },
        { kind: 'notExists' },
      );
      return { ...test, quarantine: null };
    },

    async get(orgId: string, testId: string): Promise<TestRecord | undefined> {
      const item = await table.get(keys.test(orgId, testId));
      return item ? asTest(item) : undefined;
    },

    /** Changes the given fields; undefined if there is no such test in the organization. */
    async update(orgId: string, testId: string, patch: Partial<Pick<TestRecord, 'name' | 'description' | 'type' | 'steps' | 'assertions' | 'priority' | 'tags' | 'parameter_sets'>> & { browser?: TestRecord['browser'] | null }): Promise<TestRecord | undefined> {
      // browser: null goes back to the default context (the attribute goes; description keeps its null).
      const { browser, ...rest } = patch;
      const set: Record<string, unknown> = Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined));
      if (browser) set.browser = browser;
      const remove = browser === null ? ['browser'] : [];
      set.updated_at = ctx.clock.now().toISOString();
      try {
        return asTest(await table.update({ key: keys.test(orgId, testId), set, ...(remove.length && { remove }) }));
      } catch (err) {
        if (err instanceof ConditionFailedError) return undefined;
        throw err;
      }
    },

    /**
     * Quarantines the test (or, with null, releases it); undefined if there is no such test.
     * Not an edit of the test: `updated_at` stays (the flaky ranking reads it as the last change).
     */
    async setQuarantine(orgId: string, testId: string, quarantine: TestRecord['quarantine']): Promise<TestRecord | undefined> {
      try {
        return asTest(await table.update({ key: keys.test(orgId, testId), ...(quarantine ? { set: { quarantine } } : { remove: ['quarantine'] }) }));
      } catch (err) {
        if (err instanceof ConditionFailedError) return undefined;
        throw err;
      }
    },

    /**
     * Keeps the outcome of the test's latest run in `status`. Not an edit: `updated_at` stays,
     * since the flaky ranking reads it as the time the test last changed. A test deleted
     * meanwhile stays deleted (the update never creates an item).
     */
    async recordOutcome(orgId: string, testId: string, status: TestRecord['status']): Promise<void> {
      try {
        await table.update({ key: keys.test(orgId, testId), set: { status } });
      } catch (err) {
        if (!(err instanceof ConditionFailedError)) throw err;
      }
    },

    /** Removes a test (its past results stay with their runs); undefined if there was none. */
    async delete(orgId: string, testId: string): Promise<TestRecord | undefined> {
      const test = await this.get(orgId, testId);
      if (!test) return undefined;
      await table.delete(keys.test(orgId, testId));
      return test;
    },

    async list(orgId: string, opts: { projectId?: string; limit: number; cursor?: string }) {
      const page = opts.projectId
        ? await queryPage<TestRecord & { organization_id?: string }>(table, { index: 'gsi1', pk: keys.testsOfProject(opts.projectId), limit: opts.limit, cursor: opts.cursor, descending: true })
        : await queryPage<TestRecord & { organization_id?: string }>(table, { pk: `ORG#${orgId}`, skPrefix: 'TEST#', limit: opts.limit, cursor: opts.cursor, descending: true });
      return { ...page, items: page.items.map((t) => asTest(t)) };
    },
  };
}
