import type { AliasSpec } from './common.ts';

/** seconds (float) → milliseconds (integer, rounded). */
export const secondsToMs = (seconds: number) => Math.round(seconds * 1000);

/** Alias `duration_seconds` → canonical `duration_ms`, converting the unit. */
export const durationSecondsAlias: AliasSpec = {
  to: 'duration_ms',
  convert: (value) =>
    typeof value === 'number' && Number.isFinite(value) && value >= 0
      ? { ok: true, value: secondsToMs(value) }
      : { ok: false, message: 'must be a non-negative number of seconds' },
};
