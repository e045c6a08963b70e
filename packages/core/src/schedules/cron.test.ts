import { describe, expect, it } from 'vitest';
import { cronProblem, isTimeZone, nextFire } from './cron.ts';

const at = (iso: string) => new Date(iso);

describe('cron expressions', () => {
  it('accepts five fields and the macros, and says what is wrong with the rest', () => {
    for (const ok of ['* * * * *', '30 2 * * 1-5', '*/15 8-18 * * MON-FRI', '0 0 1 1,7 *', '@daily', '@hourly', '@weekly', '@monthly', '@yearly']) expect(cronProblem(ok), ok).toBeUndefined();
    expect(cronProblem('* * * * * *')).toMatch(/five fields/);
    expect(cronProblem('0 2 * *')).toMatch(/five fields/);
    expect(cronProblem('61 * * * *')).toMatch(/minute: 61/);
    expect(cronProblem('0 25 * * *')).toMatch(/hour/);
    expect(cronProblem('0 0 30 2 *')).toMatch(/never names a date/);
    expect(cronProblem('@sometimes')).toMatch(/five fields/);
  });

  it('names the next minute after a time, never the time itself', () => {
    expect(nextFire('*/15 * * * *', 'UTC', at('2026-01-01T05:00:00Z'))?.toISOString()).toBe('2026-01-01T05:15:00.000Z');
    expect(nextFire('*/15 * * * *', 'UTC', at('2026-01-01T05:00:01Z'))?.toISOString()).toBe('2026-01-01T05:15:00.000Z');
    expect(nextFire('30 2 * * 1-5', 'UTC', at('2026-01-02T03:00:00Z'))?.toISOString()).toBe('2026-01-05T02:30:00.000Z'); // Friday after 02:30 → Monday
    expect(nextFire('@daily', 'UTC', at('2026-01-01T05:00:00Z'))?.toISOString()).toBe('2026-01-02T00:00:00.000Z');
  });

  it('reads the expression in its time zone, across a change of daylight saving time', () => {
    // 02:00 in Berlin is 01:00 UTC in winter and 00:00 UTC in summer (from 29 March 2026).
    expect(nextFire('0 2 * * *', 'Europe/Berlin', at('2026-03-27T12:00:00Z'))?.toISOString()).toBe('2026-03-28T01:00:00.000Z');
    expect(nextFire('0 2 * * *', 'Europe/Berlin', at('2026-03-29T12:00:00Z'))?.toISOString()).toBe('2026-03-30T00:00:00.000Z');
    expect(nextFire('0 9 * * *', 'America/New_York', at('2026-07-01T00:00:00Z'))?.toISOString()).toBe('2026-07-01T13:00:00.000Z');
  });

  it('day of month and day of week: either one matches, as in classic cron', () => {
    // The 1st of the month or a Monday: 2026-01-05 is the first Monday after the 1st.
    expect(nextFire('0 0 1 * MON', 'UTC', at('2026-01-01T05:00:00Z'))?.toISOString()).toBe('2026-01-05T00:00:00.000Z');
  });

  it('knows IANA time zones', () => {
    expect(isTimeZone('UTC')).toBe(true);
    expect(isTimeZone('Asia/Kolkata')).toBe(true);
    expect(isTimeZone('Mars/Olympus_Mons')).toBe(false);
    expect(isTimeZone('+02:00')).toBe(false);
  });
});
