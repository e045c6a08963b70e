import { HEALING_CACHE_TTL_SECONDS } from '../../store/healing-cache.ts';

/** Healing limits (spec: SELF_HEAL_CONFIDENCE_THRESHOLD 0.8, SELF_HEAL_MAX_RETRIES 3) and a project's overrides. */
export interface HealingSettings {
  enabled: boolean;
  threshold: number;
  max_retries: number;
  cache_ttl_seconds: number;
}

export const defaultHealingSettings: HealingSettings = { enabled: true, threshold: 0.8, max_retries: 3, cache_ttl_seconds: HEALING_CACHE_TTL_SECONDS };

/**
 * A project's overrides live in `config.healing` (`{ enabled, threshold, max_retries }`;
 * `confidence_threshold` and `self_heal_confidence_threshold` are accepted for threshold).
 * Out-of-range values are ignored and reported, never applied: a threshold below 0.5 or
 * more than 10 retries would turn healing into guessing.
 */
export function healingSettings(projectConfig: Record<string, unknown> | undefined, base: HealingSettings = defaultHealingSettings): { settings: HealingSettings; overrides: Record<string, unknown>; ignored: string[] } {
  const raw = projectConfig?.healing;
  const settings = { ...base };
  const overrides: Record<string, unknown> = {};
  const ignored: string[] = [];
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return { settings, overrides, ignored };
  const h = raw as Record<string, unknown>;
  const threshold = h.threshold ?? h.confidence_threshold ?? h.self_heal_confidence_threshold;
  if (threshold !== undefined) {
    if (typeof threshold === 'number' && threshold >= 0.5 && threshold <= 1) settings.threshold = overrides.threshold = threshold;
    else ignored.push('config.healing.threshold: must be a number from 0.5 to 1');
  }
  if (h.max_retries !== undefined) {
    if (Number.isInteger(h.max_retries) && (h.max_retries as number) >= 0 && (h.max_retries as number) <= 10) settings.max_retries = overrides.max_retries = h.max_retries as number;
    else ignored.push('config.healing.max_retries: must be a whole number from 0 to 10');
  }
  if (h.enabled !== undefined) {
    if (typeof h.enabled === 'boolean') settings.enabled = overrides.enabled = h.enabled;
    else ignored.push('config.healing.enabled: must be true or false');
  }
  return { settings, overrides, ignored };
}
