import type { HealingPattern, HealingPatternQuery } from '../contracts/healing-pattern.ts';
import type { JsonObject } from '../contracts/common.ts';
import { ConditionFailedError } from '../ports/table.ts';
import { stableKey } from '../healing/service/hash.ts';
import { keys, stripLayout } from './keys.ts';
import { queryAll, type Page, type StoreContext } from './context.ts';

export interface NewHealingPattern {
  project_id: string | null;
  pattern_type: string;
  original_selector: string;
  healed_selector: string;
  confidence: number;
  method: string;
  git_commit?: string | null;
  git_context?: JsonObject | null;
  applied_by?: string | null;
  /** The structured locator behind healed_selector, so the healer can apply it again. */
  healed_locator?: unknown;
}

export interface HealingPatternRecord extends HealingPattern {
  healed_locator?: unknown;
}

export interface HealingStats {
  heals_applied: number;
  heals_failed: number;
  cache_hits: number;
  by_method: Record<string, number>;
}

/** Fixes count as proven once applied this often with more successes than failures. */
export const TRUSTED_SUCCESS_COUNT = 2;

/**
 * Applied heals (healing_patterns), keyed by organization; gsi1 groups the patterns of
 * one (project, original selector) so the healer finds past fixes in one query. A
 * reverted pattern keeps its record (who, when) but is never applied again.
 */
export function healingPatternsRepo(ctx: StoreContext) {
  const { table } = ctx;
  const toPattern = (item: Record<string, unknown>): HealingPatternRecord => {
    const { organization_id: _org, ...p } = stripLayout<HealingPatternRecord & { organization_id: string }>(item);
    // Older items may lack the revert and method fields.
    return { ...p, method: p.method ?? 'dom_similarity', applied_by: p.applied_by ?? null, reverted_at: p.reverted_at ?? null, reverted_by: p.reverted_by ?? null };
  };

  const repo = {
    async create(orgId: string, input: NewHealingPattern): Promise<HealingPatternRecord> {
      const pattern: HealingPatternRecord = {
        id: ctx.newId(),
        project_id: input.project_id,
        pattern_type: input.pattern_type,
        original_selector: input.original_selector,
        healed_selector: input.healed_selector,
        confidence: input.confidence,
        method: input.method,
        git_commit: input.git_commit ?? null,
        git_context: input.git_context ?? null,
        success_count: 0,
        failure_count: 0,
        created_at: ctx.clock.now().toISOString(),
        last_used_at: null,
        applied_by: input.applied_by ?? null,
        reverted_at: null,
        reverted_by: null,
        ...(input.healed_locator !== undefined ? { healed_locator: input.healed_locator } : {}),
      };
      await table.put(
        {
          ...keys.healingPattern(orgId, pattern.id),
          entity: 'healing_pattern',
          organization_id: orgId,
          gsi1pk: keys.healingPatternsOfSelector(orgId, pattern.project_id, stableKey(pattern.original_selector)),
          gsi1sk: `HEALPAT#${pattern.id}`,
          ...pattern,
        },
        { kind: 'notExists' },
      );
      return pattern;
    },

    async get(orgId: string, id: string): Promise<HealingPatternRecord | undefined> {
      const item = await table.get(keys.healingPattern(orgId, id));
      return item ? toPattern(item) : undefined;
    },

    /** Every pattern (active or reverted) learned for this selector in this project. */
    async forSelector(orgId: string, projectId: string | null, original: string): Promise<HealingPatternRecord[]> {
      const items = await queryAll(table, { index: 'gsi1', pk: keys.healingPatternsOfSelector(orgId, projectId, stableKey(original)) });
      return items.map(toPattern).filter((p) => p.original_selector === original);
    },

    /** The active pattern with the most successes for this selector, if it has proven itself (or a person applied it). */
    async bestFix(orgId: string, projectId: string | null, original: string): Promise<HealingPatternRecord | undefined> {
      const candidates = (await repo.forSelector(orgId, projectId, original)).filter(
        // A fix a person applied (apply-fix) is trusted until it fails more often than it works.
        (p) => !p.reverted_at && (p.applied_by ? p.success_count >= p.failure_count : p.success_count >= TRUSTED_SUCCESS_COUNT && p.success_count > p.failure_count),
      );
      return candidates.sort((a, b) => b.success_count - a.success_count || b.confidence - a.confidence)[0];
    },

    /** Patterns newest first, filtered; pages by the organization partition (a filtered page may be short). */
    async list(orgId: string, q: HealingPatternQuery): Promise<Page<HealingPatternRecord>> {
      const page = await table.query({ pk: `ORG#${orgId}`, skPrefix: 'HEALPAT#', limit: q.limit, cursor: q.cursor, descending: true });
      const items = page.items
        .map(toPattern)
        .filter(
          (p) =>
            (!q.project_id || p.project_id === q.project_id) &&
            (!q.pattern_type || p.pattern_type === q.pattern_type) &&
            (q.min_confidence === undefined || p.confidence >= q.min_confidence) &&
            (q.reverted === undefined || (q.reverted === 'true') === !!p.reverted_at),
        );
      return { items, next_cursor: page.cursor ?? null };
    },

    async recordSuccess(orgId: string, id: string): Promise<void> {
      await table.update({ key: keys.healingPattern(orgId, id), add: { success_count: 1 }, set: { last_used_at: ctx.clock.now().toISOString() } });
    },

    async recordFailure(orgId: string, id: string): Promise<void> {
      await table.update({ key: keys.healingPattern(orgId, id), add: { failure_count: 1 }, set: { last_used_at: ctx.clock.now().toISOString() } });
    },

    /** Marks a pattern reverted; undefined when there is no such pattern in this organization. Reverting twice keeps the first record. */
    async revert(orgId: string, id: string, by: string): Promise<HealingPatternRecord | undefined> {
      const existing = await repo.get(orgId, id);
      if (!existing) return undefined;
      if (existing.reverted_at) return existing;
      const item = await table.update({ key: keys.healingPattern(orgId, id), set: { reverted_at: ctx.clock.now().toISOString(), reverted_by: by } });
      return toPattern(item);
    },

    /** Counts every heal outcome for GET /api/healing/stats. */
    async countOutcome(orgId: string, outcome: { success: boolean; method: string; fromCache: boolean }): Promise<void> {
      const add: Record<string, number> = outcome.success ? { heals_applied: 1, [`method_${outcome.method}`]: 1 } : { heals_failed: 1 };
      if (outcome.fromCache && outcome.success) add.cache_hits = 1;
      const key = keys.healingStats(orgId);
      try {
        await table.update({ key, add });
      } catch (err) {
        if (!(err instanceof ConditionFailedError)) throw err;
        // First outcome of this organization: create the counter item, then count (a racing creator is fine).
        await table.put({ ...key, entity: 'healing_stats' }, { kind: 'notExists' }).catch((e) => {
          if (!(e instanceof ConditionFailedError)) throw e;
        });
        await table.update({ key, add });
      }
    },

    async stats(orgId: string): Promise<HealingStats> {
      const item: Record<string, unknown> = (await table.get(keys.healingStats(orgId))) ?? {};
      const num = (k: string) => (typeof item[k] === 'number' ? (item[k] as number) : 0);
      const by_method: Record<string, number> = {};
      for (const [k, v] of Object.entries(item)) if (k.startsWith('method_') && typeof v === 'number') by_method[k.slice(7)] = v;
      return { heals_applied: num('heals_applied'), heals_failed: num('heals_failed'), cache_hits: num('cache_hits'), by_method };
    },

    /** Every pattern of the organization (for stats: top patterns). Bounded by the number of distinct fixes. */
    async all(orgId: string): Promise<HealingPatternRecord[]> {
      return (await queryAll(table, { pk: `ORG#${orgId}`, skPrefix: 'HEALPAT#' })).map(toPattern);
    },
  };
  return repo;
}
