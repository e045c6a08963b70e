import { redactSecrets } from '../variables.ts';

/** What a masked value shows, as secrets are shown everywhere else in results. */
export const MASK = '***';

/** Words of a field name that say it holds a credential. */
const SECRET_WORDS = new Set(['password', 'passwd', 'passphrase', 'pwd', 'secret', 'secrets', 'token', 'tokens', 'credential', 'credentials', 'cookie', 'cookies', 'session', 'otp', 'cvv', 'cvc', 'ssn', 'pin', 'csrf', 'xsrf', 'authorization', 'apikey', 'privatekey']);
/** Two words that do together: api_key, private-key, accessKeys, card_number. */
const SECRET_PAIRS = new Set(['api key', 'private key', 'access key', 'secret key', 'card number']);

/**
 * Whether a field's name says it holds a credential: `password`, `api_key`, `accessToken`,
 * `session-id`, `card_number`. Matched on the name's words (split at _, -, spaces and
 * camelCase), so `author` or `spinner` are not taken for `auth` or `pin`.
 */
export function looksSecret(name: string): boolean {
  const words = name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase().split(/[^a-z0-9]+/).filter(Boolean);
  return words.some((w, i) => SECRET_WORDS.has(w) || (i > 0 && SECRET_PAIRS.has(`${words[i - 1]} ${w.replace(/s$/, '')}`)));
}

/**
 * An extracted value as the result keeps it. A later step still gets the value itself; what
 * is recorded — and shown in reports, the dashboard and act's answer — has the project's
 * secret values replaced by *** (a page may show what the test typed), and every value
 * under a field named like a credential masked whatever it is, keeping the shape (a list
 * stays a list, null stays null) so the reader sees what was read without seeing it.
 */
export function maskExtracted(value: unknown, secrets: Record<string, string>): unknown {
  return walk(value, secrets, false);
}

function walk(v: unknown, secrets: Record<string, string>, hidden: boolean): unknown {
  if (v === null || v === undefined) return v;
  if (Array.isArray(v)) return v.map((x) => walk(x, secrets, hidden));
  if (typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x, secrets, hidden || looksSecret(k))]));
  if (hidden) return MASK;
  return typeof v === 'string' ? redactSecrets(v, secrets) : v;
}
