import { ConditionFailedError, type WriteOp } from '../ports/table.ts';
import { AppError } from '../errors.ts';
import { definitionFields } from '../contracts/test-revision.ts';
import { keys } from './keys.ts';
import { authorName } from './author-name.ts';
import type { StoreContext } from './context.ts';
import { changedFields, definitionOf, REVISIONS_KEPT, revisionPut, type RevisionAuthor, type testRevisionsRepo } from './test-revisions.ts';
import type { TestPatch, TestRecord } from './tests.ts';

/**
 * How a test's definition changes: read it, apply the patch, and write the test and its
 * new revision in one transaction conditioned on the revision read (docs/test-revisions.md).
 */
export function testChanger(ctx: StoreContext, revisions: ReturnType<typeof testRevisionsRepo>, asTest: (item: Record<string, unknown>) => TestRecord) {
  const { table } = ctx;

  /** 412 naming the revision the test is at, and who wrote it when. */
  async function stale(orgId: string, current: TestRecord, expected: number | undefined): Promise<AppError> {
    const latest = await revisions.get(orgId, current.id, current.revision);
    const by = latest?.changed_by ?? 'unknown';
    const at = latest?.created_at ?? current.updated_at;
    const against = expected === undefined ? 'it changed while your change was being written' : `your change was made against revision ${expected}`;
    const who = await authorName(table, orgId, by);
    return new AppError('PRECONDITION_FAILED', `test ${current.id} is at revision ${current.revision}, changed by ${who} at ${at}; ${against}: reload it and apply your change again`, {
      current_revision: current.revision,
      changed_by: by,
      changed_by_name: who,
      changed_at: at,
    });
  }

  /**
   * Applies a change to the definition the test has now, conditioned on its revision.
   * A writer that raced us between the read and the transaction fails the condition:
   * with an expected revision that is a 412; without one (last write wins) the change
   * is read and applied once more, then a 412 if it races again.
   */
  async function change(orgId: string, testId: string, patchOf: (current: TestRecord) => TestPatch, author: RevisionAuthor, expectedRevision?: number): Promise<TestRecord | undefined> {
    const key = keys.test(orgId, testId);
    let current: TestRecord | undefined;
    for (let attempt = 0; attempt < 2; attempt++) {
      const item = await table.get(key);
      if (!item) return undefined;
      current = asTest(item);
      if (expectedRevision !== undefined && expectedRevision !== current.revision) throw await stale(orgId, current, expectedRevision);
      const { browser, ...rest } = patchOf(current);
      const set: Record<string, unknown> = Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined));
      if (browser) set.browser = browser;
      const next: TestRecord = { ...current, ...set } as TestRecord;
      if (browser === null) delete next.browser;
      const changed = changedFields(current, next);
      if (!changed.length) return current; // nothing differs: no revision, nothing written
      const revision = current.revision + 1;
      const now = ctx.clock.now().toISOString();
      const legacy = typeof item.revision !== 'number';
      const ops: WriteOp[] = [
        {
          type: 'update',
          update: {
            key,
            set: { ...Object.fromEntries(changed.filter((f) => f in set).map((f) => [f, set[f]])), revision, updated_at: now },
            ...(browser === null && current.browser && { remove: ['browser'] }),
            // A test from before revisions has no attribute to compare: the notExists put of its revision 1 below guards it instead.
            condition: legacy ? { kind: 'exists' } : { kind: 'equals', attr: 'revision', value: current.revision },
          },
        },
        revisionPut(orgId, testId, revision, definitionOf(next), author, changed, now),
        ...(legacy ? [revisionPut(orgId, testId, 1, definitionOf(current), { changed_by: 'unknown', source: 'before_history' }, definitionFields.filter((f) => current![f] !== undefined), current.updated_at)] : []),
        ...(revision > REVISIONS_KEPT ? [{ type: 'delete' as const, key: keys.testRevision(orgId, testId, revision - REVISIONS_KEPT) }] : []),
      ];
      try {
        await table.transact(ops);
        return { ...next, revision, updated_at: now };
      } catch (err) {
        if (!(err instanceof ConditionFailedError)) throw err;
      }
    }
    const item = await table.get(key);
    if (!item) return undefined; // deleted meanwhile
    throw await stale(orgId, asTest(item), expectedRevision);
  }

  return change;
}
