/**
 * Password hashing with scrypt (memory-hard), encoded as a self-describing string
 *
 *   scrypt$<N>$<r>$<p>$<salt base64url>$<hash base64url>
 *
 * so parameters can be raised later without invalidating existing hashes: verification
 * always uses the parameters stored alongside the hash.
 */
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/** Cost parameters for new hashes: N=2^15, r=8, p=1 (~32 MiB, roughly 100 ms). */
export const scryptParams = { N: 2 ** 15, r: 8, p: 1 } as const;

const SALT_BYTES = 16;
const KEY_BYTES = 32;

// Bounds on parameters accepted from a stored string. A tampered or corrupt record must
// not be able to make verification allocate gigabytes or spin for minutes.
const MIN_LOG2_N = 10;
const MAX_LOG2_N = 20;
const MAX_R = 32;
const MAX_P = 16;
const MAX_MEM = 256 * 1024 * 1024;
const MIN_SALT_BYTES = 8;
const MIN_KEY_BYTES = 16;
const MAX_KEY_BYTES = 64;

export const passwordMinLength = 8;
export const passwordMaxLength = 256;

/** scrypt needs 128 * N * r bytes; leave headroom above that (Node's default cap is 32 MiB). */
function maxmemFor(N: number, r: number, p: number): number {
  return 128 * N * r + 128 * r * p + 16 * 1024 * 1024;
}

function deriveKey(password: string, salt: Buffer, keylen: number, N: number, r: number, p: number): Promise<Buffer> {
  const options: ScryptOptions = { N, r, p, maxmem: maxmemFor(N, r, p) };
  return new Promise((resolve, reject) => {
    scrypt(normalize(password), salt, keylen, options, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

/** NFKC so that the same visible password typed on different keyboards/OSes matches. */
function normalize(password: string): string {
  return password.normalize('NFKC');
}

const BASE64URL = /^[A-Za-z0-9_-]+$/;
const DECIMAL = /^[1-9][0-9]{0,9}$/;

export async function hashPassword(password: string): Promise<string> {
  if (typeof password !== 'string') throw new TypeError('password must be a string');
  const { N, r, p } = scryptParams;
  const salt = randomBytes(SALT_BYTES);
  const hash = await deriveKey(password, salt, KEY_BYTES, N, r, p);
  return ['scrypt', N, r, p, salt.toString('base64url'), hash.toString('base64url')].join('$');
}

interface ParsedHash {
  N: number;
  r: number;
  p: number;
  salt: Buffer;
  hash: Buffer;
}

function parseStored(stored: unknown): ParsedHash | undefined {
  if (typeof stored !== 'string' || stored.length > 1024) return undefined;
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return undefined;
  const [, nStr, rStr, pStr, saltStr, hashStr] = parts;
  if (!DECIMAL.test(nStr) || !DECIMAL.test(rStr) || !DECIMAL.test(pStr)) return undefined;
  if (!BASE64URL.test(saltStr) || !BASE64URL.test(hashStr)) return undefined;
  const N = Number(nStr);
  const r = Number(rStr);
  const p = Number(pStr);
  // N must be a power of two within bounds.
  const log2N = Math.log2(N);
  if (!Number.isInteger(log2N) || log2N < MIN_LOG2_N || log2N > MAX_LOG2_N) return undefined;
  if (r < 1 || r > MAX_R || p < 1 || p > MAX_P) return undefined;
  if (maxmemFor(N, r, p) > MAX_MEM) return undefined;
  const salt = Buffer.from(saltStr, 'base64url');
  const hash = Buffer.from(hashStr, 'base64url');
  if (salt.length < MIN_SALT_BYTES || hash.length < MIN_KEY_BYTES || hash.length > MAX_KEY_BYTES) return undefined;
  return { N, r, p, salt, hash };
}

/** True iff `password` matches `stored`. Never throws: malformed input simply returns false. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  try {
    if (typeof password !== 'string') return false;
    const parsed = parseStored(stored);
    if (!parsed) return false;
    const candidate = await deriveKey(password, parsed.salt, parsed.hash.length, parsed.N, parsed.r, parsed.p);
    return candidate.length === parsed.hash.length && timingSafeEqual(candidate, parsed.hash);
  } catch {
    return false;
  }
}

/** True when `stored` was made with weaker parameters than today's and should be rehashed on next login. */
export function passwordNeedsRehash(stored: string): boolean {
  const parsed = parseStored(stored);
  if (!parsed) return true;
  return parsed.N < scryptParams.N || parsed.r < scryptParams.r || parsed.p < scryptParams.p || parsed.hash.length < KEY_BYTES;
}

/** Human-readable policy violations; empty when the password is acceptable. Length counts Unicode code points. */
export function passwordPolicyIssues(password: string): string[] {
  if (typeof password !== 'string') return ['Password must be a string'];
  const length = [...normalize(password)].length;
  const issues: string[] = [];
  if (length < passwordMinLength) issues.push(`Password must be at least ${passwordMinLength} characters`);
  if (length > passwordMaxLength) issues.push(`Password must be at most ${passwordMaxLength} characters`);
  return issues;
}
