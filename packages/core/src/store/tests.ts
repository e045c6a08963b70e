import type { z } from 'zod';
import type { TestSchema } from '../contracts/test.ts';
import { ConditionFailedError } from '../ports/table.ts';
import { AppError } from '../errors.ts';
import { MAX_TEST_TIMEOUT_MS } from '../contracts/steps.ts';
import { keys, stripLayout } from './keys.ts';
import { definitionOf, REVISIONS_KEPT, revisionPut, testRevisionsRepo, type RevisionAuthor } from './test-revisions.ts';
import { testChanger } from './test-change.ts';
import { queryPage, type StoreContext } from './context.ts';

export type TestRecord = z.output<typeof TestSchema>;
type Defaulted = 'timeout_ms' | 'parameters' | 'parameter_sets';
/** A new test; the timeout defaults to the 10-minute maximum, parameters and parameter sets to none. */
export type NewTest = Omit<TestRecord, 'id' | 'status' | 'created_at' | 'updated_at' | Defaulted | 'quarantine' | 'revision'> & Partial<Pick<TestRecord, Defaulted>>;
/** A change of a test's definition: the fields given; `browser: null` goes back to the default context. */
export type TestPatch = Partial<Pick<TestRecord, 'name' | 'description' | 'type' | 'steps' | 'assertions' | 'priority' | 'tags' | Defaulted>> & { browser?: TestRecord['browser'] | null };

/** What a test has that was stored before these fields existed (or a revision that lacks them); fresh objects each time. */
export const testDefaults = (): Pick<TestRecord, Defaulted> => ({ timeout_ms: MAX_TEST_TIMEOUT_MS, parameters: {}, parameter_sets: [] });

/**
 * A stored test as read: tests stored before timeouts, parameters, parameter sets (or
 * quarantine) existed have the defaults, and tests stored before revisions are at revision 1.
 */
/** The fields given a value (an explicit undefined must not hide a default). */
const withoutUndefined = <T extends object>(o: T): T => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;

function asTest(item: Record<string, unknown>): TestRecord {
  const { organization_id: _org, ...test } = stripLayout<TestRecord & { organization_id?: string }>(item);
  const defaults = testDefaults();
  return {
    ...test,
    timeout_ms: test.timeout_ms ?? defaults.timeout_ms,
    parameters: test.parameters ?? defaults.parameters,
    parameter_sets: test.parameter_sets ?? defaults.parameter_sets,
    quarantine: test.quarantine ?? null,
    revision: typeof test.revision === 'number' ? test.revision : 1,
  };
}

/**
 * Tests are keyed by organization (so a test id from another tenant resolves to
 * nothing) and indexed by project on gsi1 in creation order. Every change of a test's
 * definition writes a revision (store/test-revisions.ts) in the same transaction.
 */
export function testsRepo(ctx: StoreContext) {
  const { table } = ctx;
  const revisions = testRevisionsRepo(table);

  const change = testChanger(ctx, revisions, asTest);

  return {
    revisions,

    /** Writes the test at revision 1 with its first revision, in one transaction. */
    async create(orgId: string, input: NewTest, author: Omit<RevisionAuthor, 'source'> = { changed_by: 'system:unknown' }): Promise<TestRecord> {
      const now = ctx.clock.now().toISOString();
      const { quarantine: _none, ...test }: TestRecord = { ...testDefaults(), ...withoutUndefined(input), id: ctx.newId(), status: 'pending', quarantine: null, revision: 1, created_at: now, updated_at: now };
      const definition = definitionOf(test);
      await table.transact([
        { type: 'put', item: { ...keys.test(orgId, test.id), entity: 'test', organization_id: orgId, gsi1pk: keys.testsOfProject(test.project_id), gsi1sk: `TEST#${test.id}`, ...test }, condition: { kind: 'notExists' } },
        revisionPut(orgId, test.id, 1, definition, { ...author, source: 'created' }, Object.keys(definition), now),
      ]);
      return { ...test, quarantine: null };
    },

    async get(orgId: string, testId: string): Promise<TestRecord | undefined> {
      const item = await table.get(keys.test(orgId, testId));
      return item ? asTest(item) : undefined;
    },

    /**
     * Changes the given fields as a new revision; undefined if there is no such test in the
     * organization. With `expectedRevision`, a test at another revision is a 412
     * PRECONDITION_FAILED; a change that alters nothing writes nothing.
     */
    async update(orgId: string, testId: string, patch: TestPatch, author: RevisionAuthor, expectedRevision?: number): Promise<TestRecord | undefined> {
      return change(orgId, testId, () => patch, author, expectedRevision);
    },

    /**
     * Makes a kept revision's definition current, as a new revision with source `restored`.
     * undefined if there is no such test; throws NOT_FOUND for an unknown revision.
     */
    async restore(orgId: string, testId: string, revision: number, author: Omit<RevisionAuthor, 'source' | 'restored_from'>, expectedRevision?: number): Promise<TestRecord | undefined> {
      if (!(await table.get(keys.test(orgId, testId)))) return undefined;
      const kept = await revisions.get(orgId, testId, revision);
      if (!kept) throw new AppError('NOT_FOUND', `revision ${revision} of test ${testId} not found (the newest ${REVISIONS_KEPT} are kept)`);
      const { browser, ...definition } = kept.definition;
      // A revision from before a field existed had its default: restoring it restores that too.
      return change(orgId, testId, () => ({ ...testDefaults(), ...definition, browser: browser ?? null }), { ...author, source: 'restored', restored_from: revision }, expectedRevision);
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

    /** Removes a test and its revisions (its past results stay with their runs); undefined if there was none. */
    async delete(orgId: string, testId: string): Promise<TestRecord | undefined> {
      const test = await this.get(orgId, testId);
      if (!test) return undefined;
      await table.delete(keys.test(orgId, testId));
      // After the test: a revision left by a failure here is unreachable (every read checks the test first).
      await revisions.deleteAll(orgId, testId);
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
