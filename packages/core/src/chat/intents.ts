import type { chatIntents } from './contracts.ts';

export type BuiltInIntent = Exclude<(typeof chatIntents)[number], 'model'>;

/**
 * The deterministic matcher: keyword patterns per intent, tried in order so the more
 * specific question wins ("which tests are flaky" mentions tests but is about flakiness;
 * "what failed in the last run" is about failures, not the run's status).
 */
const patterns: Array<[BuiltInIntent, RegExp]> = [
  ['flaky', /\b(flak(y|iness|es)|intermittent(ly)?|unstable|inconsistent(ly)?|sometimes (pass|fail))/i],
  ['healed', /\b(heal(ed|s|ing)?|self[- ]?heal\w*|repaired|auto[- ]?fix(ed)?)\b/i],
  ['slowest', /\b(slow(est|er)?|longest|take the most time|duration|how long)\b/i],
  ['failed', /\b(fail(ed|ing|ures?|s)?|broke(n)?|red|errors?)\b/i],
  ['test_count', /\b(how many|number of|count)\b.*\btests?\b|\btests?\b.*\b(how many|count)\b/i],
  ['last_run', /\b(last|latest|most recent|previous|recent)\b.*\brun\b|\brun status\b|\bstatus\b/i],
];

export function matchIntent(message: string): BuiltInIntent {
  for (const [intent, re] of patterns) if (re.test(message)) return intent;
  return 'help';
}

/** What the built-in answers cover, said when a question is not understood. */
export const capabilities = [
  'what failed (in the last run or recently)',
  'what healed',
  'which tests are flaky',
  'how many tests there are',
  'the status of the last run',
  'the slowest tests',
];
