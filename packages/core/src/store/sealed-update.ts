import { ConditionFailedError, type Item, type ItemKey } from '../ports/table.ts';
import type { StoreContext } from './context.ts';

/**
 * Updates a record that has secret attributes: `setOf(current)`'s values for `fields`
 * sealed, and any of `fields` still in plaintext from before encryption at rest sealed
 * too (secretFields.forUpdate). Undefined when the record does not exist. A racing write
 * that changed a re-sealed attribute makes the first try fail its condition; the record
 * is read again and the update tried once more.
 */
export async function updateSealed(ctx: StoreContext, orgId: string, key: ItemKey, fields: readonly string[], setOf: (current: Item) => Record<string, unknown>): Promise<Item | undefined> {
  for (let attempt = 0; ; attempt++) {
    const current = await ctx.table.get(key);
    if (!current) return undefined;
    const write = await ctx.secrets.forUpdate(orgId, key, current, fields, setOf(current));
    try {
      return await ctx.table.update({ key, set: write.set, ...(write.condition ? { condition: write.condition } : {}) });
    } catch (err) {
      if (!(err instanceof ConditionFailedError)) throw err;
      if (!write.condition || attempt > 0) return undefined;
    }
  }
}
