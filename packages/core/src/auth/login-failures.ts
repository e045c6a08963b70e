import { createHash } from 'node:crypto';
import { AppError } from '../errors.ts';
import { ConditionFailedError, type Item, type ItemKey, type Table } from '../ports/table.ts';

/**
 * Failed sign-ins per account (the email asked for, known or not, so it tells nothing),
 * counted in the table rather than in one process: on Lambda every instance answers
 * sign-ins, and a count kept per instance gave an attacker `failures` guesses per instance.
 *
 * A sliding window estimated from two fixed ones (the current window's failures plus the
 * previous window's, weighted by how much of it still overlaps): two reads per sign-in
 * and one atomic increment per failure, and no burst of 2×`failures` at a window's edge.
 * While the estimate is at `failures` every sign-in to that email is refused, the right
 * password too (else guessing would go on); a successful sign-in clears the count.
 */
export function loginFailureLimit(opts: { table: Table; failures: number; windowSeconds: number; now?: () => number }) {
  const now = opts.now ?? Date.now;
  const windowMs = opts.windowSeconds * 1000;
  const partition = (email: string) => `LOGINFAIL#${createHash('sha256').update(email.trim().toLowerCase()).digest('hex').slice(0, 32)}`;
  const keyOf = (email: string, window: number): ItemKey => ({ pk: partition(email), sk: `W#${window}` });
  const countOf = (item: Item | undefined) => (typeof item?.count === 'number' ? item.count : 0);

  /** The failures the window ending now holds, and the seconds until it holds fewer than the limit. */
  async function estimate(email: string) {
    const t = now();
    const window = Math.floor(t / windowMs);
    const [previous, current] = await Promise.all([opts.table.get(keyOf(email, window - 1)), opts.table.get(keyOf(email, window))]);
    const elapsedMs = t - window * windowMs;
    const prev = countOf(previous);
    const curr = countOf(current);
    const held = prev * (1 - elapsedMs / windowMs) + curr;
    if (held < opts.failures) return { held, waitSeconds: 0 };
    // With no new failures: within this window the previous one's share fades; past it, this one's does.
    const fadesAtMs = curr < opts.failures ? windowMs - ((opts.failures - curr) * windowMs) / prev : 2 * windowMs - (opts.failures * windowMs) / curr;
    // The first whole second strictly past that point (at it, the estimate is still at the limit).
    return { held, waitSeconds: Math.floor(Math.max(0, fadesAtMs - elapsedMs) / 1000) + 1 };
  }

  return {
    /** Refuses (429 RATE_LIMITED, with the seconds to wait) while the account's failures are spent. */
    async check(email: string): Promise<void> {
      const { waitSeconds } = await estimate(email);
      if (waitSeconds > 0) throw new AppError('RATE_LIMITED', `too many failed sign-ins for this email; retry in ${waitSeconds}s`, { retry_after: waitSeconds });
    },
    async failed(email: string): Promise<void> {
      const window = Math.floor(now() / windowMs);
      const key = keyOf(email, window);
      // Kept until the window after it has ended: that one still reads it.
      const expiresAt = Math.ceil(((window + 2) * windowMs) / 1000);
      const increment = () => opts.table.update({ key, add: { count: 1 }, set: { expiresAt } });
      try {
        await increment();
      } catch (err) {
        if (!(err instanceof ConditionFailedError)) throw err;
        try {
          await opts.table.put({ ...key, entity: 'login_failures', count: 1, expiresAt }, { kind: 'notExists' });
        } catch (raced) {
          if (!(raced instanceof ConditionFailedError)) throw raced;
          await increment(); // another instance created it first
        }
      }
    },
    async succeeded(email: string): Promise<void> {
      const window = Math.floor(now() / windowMs);
      await Promise.all([opts.table.delete(keyOf(email, window - 1)), opts.table.delete(keyOf(email, window))]);
    },
  };
}
