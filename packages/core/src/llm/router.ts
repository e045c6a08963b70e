import { cheaperTiers, richerTiers } from './tiers.ts';
import type { ModelChoice, ModelTier } from './types.ts';

/**
 * The models to try for a tier, in order. With fallback (the default, spec
 * MODEL_FALLBACK_ENABLED): every model of the tier in provider order, then the cheaper
 * tiers' models, nearest first. Without: the tier's first model only.
 *
 * When no model is configured at the tier or below (say only a most-capable model), the
 * nearest richer tier stands in — a task is better done on a dearer model than not at
 * all, and budgets still bound the spend.
 */
export function candidatesFor(models: readonly ModelChoice[], tier: ModelTier, fallback: boolean): ModelChoice[] {
  const at = (t: ModelTier) => models.filter((m) => m.tier === t);
  let list = [...at(tier), ...cheaperTiers(tier).flatMap(at)];
  if (list.length === 0) {
    const richer = richerTiers(tier).find((t) => at(t).length > 0);
    list = richer ? at(richer) : [];
  }
  return fallback ? list : list.slice(0, 1);
}
