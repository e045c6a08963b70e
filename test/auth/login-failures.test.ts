/**
 * Failed sign-ins per email, counted in the table (DynamoDB Local here): two limiters on one
 * table stand for two Lambda instances — guesses spread over them are counted together (a
 * count per process gave `failures` guesses per instance). On a clock the test moves: the
 * wait it names is when a sign-in is let through again, the previous window's failures
 * fade rather than vanish at its edge, a success clears the count, and other emails are apart.
 */
import { describe, expect, it } from 'vitest';
import { loginFailureLimit } from '../../packages/core/src/auth/login-failures.ts';
import { AppError } from '../../packages/core/src/errors.ts';
import { useDynamoDbLocal } from '../support/dynamodb-local.ts';

const ddb = useDynamoDbLocal('login-failures');
const WINDOW_S = 900;

async function world() {
  let t = Date.UTC(2026, 11, 2, 10, 0, 0); // a window's start (900 s divides the epoch's hours)
  const clock = { now: () => new Date(t) };
  const { table, cleanup } = await ddb.tableFixture({ clock });
  const limiter = () => loginFailureLimit({ table, failures: 3, windowSeconds: WINDOW_S, now: () => t });
  return { a: limiter(), b: limiter(), advance: (seconds: number) => (t += seconds * 1000), cleanup };
}

/** The seconds a refused check says to wait, or 0 when it lets the sign-in through. */
async function waitOf(check: Promise<void>): Promise<number> {
  try {
    await check;
    return 0;
  } catch (err) {
    if (!(err instanceof AppError) || err.code !== 'RATE_LIMITED') throw err;
    expect(err.message).toMatch(/^too many failed sign-ins for this email; retry in \d+s$/);
    return (err.details as { retry_after: number }).retry_after;
  }
}

describe('failed sign-ins per email, shared by every instance', () => {
  it('counts failures made through two instances together, and says how long to wait', async () => {
    const w = await world();
    try {
      await w.a.failed('Ada@example.com');
      await w.b.failed('ada@example.com ');
      expect(await waitOf(w.a.check('ada@example.com'))).toBe(0);
      await w.a.failed('ada@example.com');
      // Spent on both instances, whichever counted which.
      const wait = await waitOf(w.b.check('ADA@example.com'));
      expect(await waitOf(w.a.check('ada@example.com'))).toBe(wait);
      // All three in this window: refused until this window's share fades below 3 in the next
      // (2 - 3/3 = 1 window from its start), the first second past it.
      expect(wait).toBe(WINDOW_S + 1);
      expect(await waitOf(w.a.check('grace@example.com'))).toBe(0);
      w.advance(wait - 1);
      expect(await waitOf(w.a.check('ada@example.com'))).toBe(1);
      w.advance(1);
      expect(await waitOf(w.a.check('ada@example.com'))).toBe(0);
    } finally {
      await w.cleanup();
    }
  });

  it("fades the previous window's failures instead of forgetting them at its edge", async () => {
    const w = await world();
    try {
      w.advance(WINDOW_S - 10);
      for (let i = 0; i < 3; i++) await w.a.failed('ada@example.com');
      w.advance(20); // 10 s into the next window: 3 × (1 - 10/900) of the last one still counts
      // Just under 3: one guess is let in as the old share starts to fade …
      expect(await waitOf(w.b.check('ada@example.com'))).toBe(0);
      // … and when it fails, 3 × (1 - e) + 1 < 3 only once e > 1/3 of this window (10 s of it are gone).
      await w.b.failed('ada@example.com');
      const wait = await waitOf(w.a.check('ada@example.com'));
      expect(wait).toBe(WINDOW_S / 3 - 10 + 1);
      w.advance(wait - 1);
      expect(await waitOf(w.a.check('ada@example.com'))).toBe(1);
      w.advance(1);
      expect(await waitOf(w.a.check('ada@example.com'))).toBe(0);
    } finally {
      await w.cleanup();
    }
  });

  it('a successful sign-in clears the count on every instance', async () => {
    const w = await world();
    try {
      for (let i = 0; i < 2; i++) await w.a.failed('ada@example.com');
      await w.b.succeeded('ada@example.com');
      await w.a.failed('ada@example.com');
      await w.b.failed('ada@example.com');
      expect(await waitOf(w.a.check('ada@example.com'))).toBe(0);
      await w.b.failed('ada@example.com');
      expect(await waitOf(w.a.check('ada@example.com'))).toBeGreaterThan(0);
    } finally {
      await w.cleanup();
    }
  });

  it('counts concurrent failures of one email exactly (the first write of a window races)', async () => {
    const w = await world();
    try {
      await Promise.all(Array.from({ length: 6 }, (_, i) => (i % 2 ? w.a : w.b).failed('ada@example.com')));
      // Six in this window: 2 − 3/6 = 1.5 windows from its start.
      expect(await waitOf(w.a.check('ada@example.com'))).toBe(1.5 * WINDOW_S + 1);
    } finally {
      await w.cleanup();
    }
  });
});
