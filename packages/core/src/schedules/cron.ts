import { Cron } from 'croner';

/** Cron macros accepted besides five fields. */
const MACROS = new Set(['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly']);

/**
 * Why a cron expression is not accepted, or undefined when it is. Five fields (minute,
 * hour, day of month, month, day of week: `30 2 * * 1-5`) or a macro (`@daily`); no
 * seconds field, since schedules fire on the minute.
 */
export function cronProblem(expression: string): string | undefined {
  const trimmed = expression.trim();
  if (!MACROS.has(trimmed.toLowerCase()) && trimmed.split(/\s+/).length !== 5) {
    return 'give five fields (minute hour day-of-month month day-of-week, e.g. "30 2 * * 1-5") or a macro such as @daily';
  }
  try {
    const cron = new Cron(trimmed, { paused: true, mode: '5-part' });
    return cron.nextRun() ? undefined : 'the expression never names a date (e.g. 30 February)';
  } catch (err) {
    return (err as Error).message.replace(/^CronPattern:\s*/, '');
  }
}

/** True when the runtime knows this IANA time zone name (offsets such as +02:00 are not names: they ignore daylight saving time). */
export function isTimeZone(zone: string): boolean {
  if (!/^[A-Za-z][A-Za-z_]*(\/[A-Za-z0-9_+-]+)*$/.test(zone)) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** The first time strictly after `after` that the expression names, in the zone; undefined if none (e.g. 30 February). */
export function nextFire(expression: string, timezone: string, after: Date): Date | undefined {
  const cron = new Cron(expression.trim(), { paused: true, timezone, mode: '5-part' });
  return cron.nextRun(after) ?? undefined;
}
