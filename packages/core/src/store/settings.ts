import { ConditionFailedError } from '../ports/table.ts';
import { keys } from './keys.ts';
import type { StoreContext } from './context.ts';
import { isSealed } from '../ports/secret-cipher.ts';

/** The organization a system setting's sealed value is bound to (settings belong to none). */
const SYSTEM = 'system';

/**
 * Installation-wide settings (e.g. the built-in issuer's signing key). `getOrCreate`
 * is race-safe: concurrent first starts agree on one value.
 */
export function systemSettingsRepo(ctx: StoreContext) {
  const { table } = ctx;
  return {
    async get<T>(name: string): Promise<T | undefined> {
      const item = await table.get(keys.systemSetting(name));
      return item ? (item.value as T) : undefined;
    },
    async getOrCreate<T>(name: string, make: () => Promise<T>): Promise<T> {
      const existing = await this.get<T>(name);
      if (existing !== undefined) return existing;
      const value = await make();
      try {
        await table.put({ ...keys.systemSetting(name), value }, { kind: 'notExists' });
        return value;
      } catch (err) {
        if (err instanceof ConditionFailedError) return (await this.get<T>(name)) as T;
        throw err;
      }
    },

    /**
     * `getOrCreate` for a setting that is a credential (the issuer's signing key): the JSON
     * value is sealed at rest (store/secret-fields.ts), bound to this setting. A value stored
     * in the clear before sealing existed is still read, and sealed in place (the same
     * value, so instances racing to do it agree).
     */
    async getOrCreateSealed<T>(name: string, make: () => Promise<T>): Promise<T> {
      const key = keys.systemSetting(name);
      const sealedOf = async (value: T) => (await ctx.secrets.seal(SYSTEM, key, { value: JSON.stringify(value) })).value;
      const read = async (): Promise<T | undefined> => {
        const item = await table.get(key);
        if (!item) return undefined;
        if (isSealed(item.value)) return JSON.parse((await ctx.secrets.open(SYSTEM, key, { value: item.value })).value as string) as T;
        const legacy = item.value as T;
        await table.update({ key, set: { value: await sealedOf(legacy) } });
        return legacy;
      };
      const existing = await read();
      if (existing !== undefined) return existing;
      const value = await make();
      try {
        await table.put({ ...key, value: await sealedOf(value) }, { kind: 'notExists' });
        return value;
      } catch (err) {
        if (err instanceof ConditionFailedError) return (await read()) as T;
        throw err;
      }
    },
  };
}
