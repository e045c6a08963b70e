import type { Locator } from '../contracts/steps.ts';
import { stableKey } from '../healing/service/hash.ts';
import { keys, stripLayout } from './keys.ts';
import { queryAll, type StoreContext } from './context.ts';

/** How long a cached heal is reused without re-ranking (issue #4: 7 days). */
export const HEALING_CACHE_TTL_SECONDS = 7 * 24 * 3600;

/** What identifies a cache entry: the same selector failing the same way on the same kind of page. */
export interface HealingCacheKey {
  project_id: string;
  original_selector: string;
  /** URL path with numeric/uuid segments as :id (see urlPathPattern). */
  url_pattern: string;
  failure_class: string;
}

export interface HealingCacheEntry extends HealingCacheKey {
  healed_selector: string;
  healed_locator: Locator;
  confidence: number;
  /** How the cached fix was first found (dom_similarity, pattern, memory...). */
  method: string;
  pattern_id: string | null;
  hit_count: number;
  created_at: string;
  expires_at: string;
}

export type NewHealingCacheEntry = Omit<HealingCacheEntry, 'hit_count' | 'created_at' | 'expires_at'>;

const entryKey = (k: HealingCacheKey) => `${k.project_id}#${stableKey(k.original_selector)}#${stableKey(k.url_pattern)}#${k.failure_class}`;

/**
 * The healing cache: a fix that worked, keyed by project + original selector + URL path
 * pattern + failure class, for 7 days. Items carry the table's `expiresAt` TTL; since
 * backends delete expired items lazily, reads check the expiry as well.
 */
export function healingCacheRepo(ctx: StoreContext) {
  const { table } = ctx;
  const nowSec = () => Math.floor(ctx.clock.now().getTime() / 1000);

  return {
    async get(orgId: string, key: HealingCacheKey): Promise<HealingCacheEntry | undefined> {
      const item = await table.get(keys.healingCache(orgId, entryKey(key)));
      if (!item) return undefined;
      if (typeof item.expiresAt === 'number' && item.expiresAt <= nowSec()) return undefined;
      const entry = stripLayout<HealingCacheEntry & { organization_id?: string }>(item);
      // The key is hashed: make sure the entry really is for this selector and page.
      if (entry.original_selector !== key.original_selector || entry.url_pattern !== key.url_pattern) return undefined;
      const { organization_id: _org, ...rest } = entry;
      return rest;
    },

    /** Stores (or refreshes) a fix; the 7-day TTL restarts. */
    async put(orgId: string, entry: NewHealingCacheEntry, ttlSeconds = HEALING_CACHE_TTL_SECONDS): Promise<HealingCacheEntry> {
      const now = ctx.clock.now();
      const expiresAt = nowSec() + ttlSeconds;
      const full: HealingCacheEntry = { ...entry, hit_count: 0, created_at: now.toISOString(), expires_at: new Date(expiresAt * 1000).toISOString() };
      await table.put({
        ...keys.healingCache(orgId, entryKey(entry)),
        entity: 'healing_cache',
        organization_id: orgId,
        gsi1pk: keys.healingCacheOfSelector(orgId, entry.project_id, stableKey(entry.original_selector)),
        gsi1sk: entryKey(entry),
        expiresAt,
        ...full,
      });
      return full;
    },

    /**
     * The live cached fixes of a project (what a run may try before waiting out a broken
     * locator), from one page of the organization's cache (1,000 entries): a run reads it
     * once per healer, so it stays one read; a fix past it still heals, just after the wait.
     */
    async listForProject(orgId: string, projectId: string): Promise<HealingCacheEntry[]> {
      const { items } = await table.query({ pk: keys.healingCache(orgId, '').pk, limit: 1000 });
      const now = nowSec();
      return items
        .filter((item) => item.project_id === projectId && !(typeof item.expiresAt === 'number' && item.expiresAt <= now))
        .map((item) => {
          const { organization_id: _org, ...rest } = stripLayout<HealingCacheEntry & { organization_id?: string }>(item);
          return rest;
        });
    },

    async recordHit(orgId: string, key: HealingCacheKey): Promise<void> {
      await table.update({ key: keys.healingCache(orgId, entryKey(key)), add: { hit_count: 1 } }).catch(() => undefined); // expired meanwhile: nothing to count
    },

    async delete(orgId: string, key: HealingCacheKey): Promise<void> {
      await table.delete(keys.healingCache(orgId, entryKey(key)));
    },

    /** Drops every cached fix of a selector that now heals to `healedSelector` (after a revert), on every page. */
    async invalidate(orgId: string, projectId: string, original: string, healedSelector?: string): Promise<number> {
      const items = await queryAll(table, { index: 'gsi1', pk: keys.healingCacheOfSelector(orgId, projectId, stableKey(original)) });
      let n = 0;
      for (const item of items) {
        if (item.original_selector !== original || (healedSelector !== undefined && item.healed_selector !== healedSelector)) continue;
        await table.delete({ pk: item.pk, sk: item.sk });
        n++;
      }
      return n;
    },
  };
}
