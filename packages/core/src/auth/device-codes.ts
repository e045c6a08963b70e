/**
 * The two codes of the OAuth 2.0 device authorization grant (RFC 8628). The device code
 * is a secret only the agent holds (256 random bits; stored as its SHA-256, like refresh
 * tokens). The user code is what a person reads off the agent's screen and types into
 * the dashboard: eight letters from RFC 8628 §6.1's alphabet (no vowels, so no words;
 * no look-alikes such as 0/O, 1/I), shown as two groups of four. 20^8 ≈ 2.6·10^10 codes,
 * against at most a few thousand live ones and a rate-limited form.
 */
import { randomInt } from 'node:crypto';
import { generateRefreshToken, hashRefreshToken } from './refresh-tokens.ts';

/** The device flow's grant_type at the token endpoint (RFC 8628 §3.4). */
export const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

export const userCodeAlphabet = 'BCDFGHJKLMNPQRSTVWXZ';
const USER_CODE_LENGTH = 8;

export interface GeneratedDeviceCode {
  /** Give to the agent once; never store. */
  code: string;
  /** SHA-256 hex of `code`; store and look up by this. */
  hash: string;
}

/** Made exactly as a refresh token is: an opaque secret of 256 bits and its SHA-256. */
export function generateDeviceCode(): GeneratedDeviceCode {
  const { token, hash } = generateRefreshToken();
  return { code: token, hash };
}

export const hashDeviceCode: (code: string) => string = hashRefreshToken;

/** A fresh user code in its canonical form: `BCDF-GHJK`. */
export function generateUserCode(): string {
  let code = '';
  for (let i = 0; i < USER_CODE_LENGTH; i++) code += userCodeAlphabet[randomInt(userCodeAlphabet.length)];
  return `${code.slice(0, 4)}-${code.slice(4)}`;
}

/**
 * What a person typed, in canonical form, or undefined when it cannot be a user code.
 * Case, spaces and dashes do not matter (RFC 8628 §6.1: be forgiving about what people type).
 */
export function normalizeUserCode(typed: string): string | undefined {
  const letters = typed.toUpperCase().replace(/[\s-]+/g, '');
  if (letters.length !== USER_CODE_LENGTH) return undefined;
  for (const ch of letters) if (!userCodeAlphabet.includes(ch)) return undefined;
  return `${letters.slice(0, 4)}-${letters.slice(4)}`;
}
