import { definitionFields, type DefinitionField, type RevisionSource, type TestDefinition, type TestRevision, type TestRevisionSummary } from '../contracts/test-revision.ts';
import type { Item, Table, WriteOp } from '../ports/table.ts';
import { keys, stripLayout } from './keys.ts';
import { queryAll, queryPage } from './context.ts';

/** The newest revisions kept per test; each write past it drops the oldest (docs/test-revisions.md). */
export const REVISIONS_KEPT = 100;

/** Who changed a test and why; a revision records it. */
export interface RevisionAuthor {
  /** A user id, `api_key:<id>`, or `system:<what>`. */
  changed_by: string;
  source: RevisionSource;
  /** For a restore: the revision brought back. */
  restored_from?: number;
}

type Definable = Partial<TestDefinition> & Pick<TestDefinition, 'name'>;

/** The definition fields of a test (browser only when it has one). */
export function definitionOf(test: Definable): TestDefinition {
  const out: Record<string, unknown> = {};
  for (const f of definitionFields) if (test[f] !== undefined) out[f] = test[f];
  return out as TestDefinition;
}

/** JSON with sorted keys: DynamoDB gives maps back in any key order, which must not read as a change. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v,
  );
}

/** The definition fields whose values differ between two definitions. */
export function changedFields(before: Partial<TestDefinition>, after: Partial<TestDefinition>): DefinitionField[] {
  return definitionFields.filter((f) => canonical(before[f] ?? null) !== canonical(after[f] ?? null));
}

/** The snapshot item of one revision, written with `notExists` so two writers of one number cannot both succeed. */
export function revisionPut(orgId: string, testId: string, revision: number, definition: TestDefinition, author: RevisionAuthor, changed: readonly string[], createdAt: string): WriteOp {
  const item: Item = {
    ...keys.testRevision(orgId, testId, revision),
    entity: 'test_revision',
    test_id: testId,
    revision,
    created_at: createdAt,
    changed_by: author.changed_by,
    source: author.source,
    changed_fields: [...changed],
    restored_from: author.restored_from ?? null,
    definition,
  };
  return { type: 'put', item, condition: { kind: 'notExists' } };
}

function asRevision(item: Record<string, unknown>): TestRevision {
  const r = stripLayout<TestRevision>(item);
  return { test_id: r.test_id, revision: r.revision, created_at: r.created_at, changed_by: r.changed_by, source: r.source, changed_fields: r.changed_fields, restored_from: r.restored_from ?? null, definition: r.definition };
}

function asSummary(item: Record<string, unknown>): TestRevisionSummary {
  const { definition: _d, ...summary } = asRevision(item);
  return summary;
}

/** Reads and removes the revisions of a test; writes go with the test's own (store/tests.ts). */
export function testRevisionsRepo(table: Table) {
  return {
    /** Newest first; the caller checks the test is the organization's. */
    async list(orgId: string, testId: string, opts: { limit: number; cursor?: string }) {
      const page = await queryPage<Record<string, unknown>>(table, { pk: `ORG#${orgId}`, skPrefix: keys.testRevisionsOf(testId), descending: true, limit: opts.limit, cursor: opts.cursor });
      return { items: page.items.map(asSummary), next_cursor: page.next_cursor };
    },

    async get(orgId: string, testId: string, revision: number): Promise<TestRevision | undefined> {
      const item = await table.get(keys.testRevision(orgId, testId, revision));
      return item ? asRevision(item) : undefined;
    },

    /** Removes every revision of a (deleted) test, 25 to a transaction. */
    async deleteAll(orgId: string, testId: string): Promise<void> {
      const items = await queryAll(table, { pk: `ORG#${orgId}`, skPrefix: keys.testRevisionsOf(testId) });
      for (let i = 0; i < items.length; i += 25) {
        await table.transact(items.slice(i, i + 25).map((it) => ({ type: 'delete' as const, key: { pk: it.pk, sk: it.sk } })));
      }
    },
  };
}
