import type { TestTemplate } from '../contracts/test-templates.ts';
import { ConditionFailedError, type Item } from '../ports/table.ts';
import { keys, stripLayout } from './keys.ts';
import { queryAll, type StoreContext } from './context.ts';

export type NewTestTemplate = Omit<TestTemplate, 'id' | 'created_at' | 'updated_at'>;
export type TestTemplatePatch = Partial<Omit<TestTemplate, 'id' | 'created_at' | 'updated_at' | 'created_by'>>;

/** Thrown when another template of the organization has the name (regardless of case). */
export class TemplateNameTaken extends Error {}

const fromItem = (item: Item): TestTemplate => stripLayout<TestTemplate>(item);

/**
 * Custom test templates of an organization, in its partition (an id from another tenant
 * resolves to nothing). The name is claimed by an item of its own (`TEMPLATENAME#`, lower
 * case) written in the same transaction, so two templates never share one.
 */
export function testTemplatesRepo(ctx: StoreContext) {
  const { table } = ctx;
  const nameClaim = (orgId: string, t: Pick<TestTemplate, 'name' | 'id'>) => ({ ...keys.testTemplateName(orgId, t.name), entity: 'test_template_name', template_id: t.id });
  const itemOf = (orgId: string, t: TestTemplate) => ({ ...keys.testTemplate(orgId, t.id), entity: 'test_template', ...t });
  const claimFailed = (err: unknown, name: string) => (err instanceof ConditionFailedError ? new TemplateNameTaken(name) : err);

  return {
    async create(orgId: string, input: NewTestTemplate): Promise<TestTemplate> {
      const now = ctx.clock.now().toISOString();
      const template: TestTemplate = { ...input, id: ctx.newId(), created_at: now, updated_at: now };
      try {
        await table.transact([
          { type: 'put', item: nameClaim(orgId, template), condition: { kind: 'notExists' } },
          { type: 'put', item: itemOf(orgId, template), condition: { kind: 'notExists' } },
        ]);
      } catch (err) {
        throw claimFailed(err, template.name);
      }
      return template;
    },

    async get(orgId: string, id: string): Promise<TestTemplate | undefined> {
      const item = await table.get(keys.testTemplate(orgId, id));
      return item ? fromItem(item) : undefined;
    },

    /** Every template of the organization, by name (an organization keeps a handful). */
    async list(orgId: string): Promise<TestTemplate[]> {
      const items = await queryAll(table, { pk: `ORG#${orgId}`, skPrefix: 'TEMPLATE#' });
      return items.map(fromItem).sort((a, b) => a.name.localeCompare(b.name));
    },

    /**
     * Writes the change onto the template the caller read (and checked the merge of); a new
     * name moves its claim. Conditional on that read: a change made meanwhile fails it.
     */
    async update(orgId: string, current: TestTemplate, patch: TestTemplatePatch): Promise<TestTemplate> {
      const id = current.id;
      const next: TestTemplate = { ...current, ...Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)), updated_at: ctx.clock.now().toISOString() };
      const renamed = next.name.trim().toLowerCase() !== current.name.trim().toLowerCase();
      try {
        await table.transact([
          ...(renamed
            ? [
                { type: 'delete' as const, key: keys.testTemplateName(orgId, current.name) },
                { type: 'put' as const, item: nameClaim(orgId, next), condition: { kind: 'notExists' as const } },
              ]
            : []),
          { type: 'put', item: itemOf(orgId, next), condition: { kind: 'equals', attr: 'updated_at', value: current.updated_at } },
        ]);
      } catch (err) {
        throw renamed ? claimFailed(err, next.name) : err;
      }
      return next;
    },

    async delete(orgId: string, id: string): Promise<TestTemplate | undefined> {
      const current = await this.get(orgId, id);
      if (!current) return undefined;
      await table.transact([
        { type: 'delete', key: keys.testTemplate(orgId, id) },
        { type: 'delete', key: keys.testTemplateName(orgId, current.name) },
      ]);
      return current;
    },
  };
}
