import { ConditionFailedError } from '../ports/table.ts';
import { keys } from './keys.ts';
import type { StoreContext } from './context.ts';

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
  };
}
