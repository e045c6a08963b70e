import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * What every signed inbound request shares (Slack's slash commands, automation events):
 * a constant-time comparison and the five-minute window on the signed timestamp.
 */

/** A timestamp more than five minutes off is a replay (or a wrong clock): Slack's limit, used for every signed request. */
export const MAX_CLOCK_SKEW_SECONDS = 5 * 60;

/**
 * Equal in constant time. Both sides are hashed first, so neither the time nor an early
 * length check tells an attacker how much of a guess was right.
 */
export function sameText(a: string, b: string): boolean {
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(a), digest(b));
}

/** The unix-seconds timestamp a header carries, if it is one and within the window of `now`; undefined otherwise. */
export function freshTimestamp(stamp: string | undefined, now: Date): number | undefined {
  if (!stamp || !/^\d{1,12}$/.test(stamp.trim())) return undefined;
  const timestamp = Number(stamp);
  return Math.abs(now.getTime() / 1000 - timestamp) > MAX_CLOCK_SKEW_SECONDS ? undefined : timestamp;
}
