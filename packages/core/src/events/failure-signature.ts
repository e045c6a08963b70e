import { createHash } from 'node:crypto';

/**
 * Error-message signatures for failure clustering. Two failures belong together when
 * their messages differ only in the parts that change from run to run — numbers, ids,
 * quoted values, URLs — so those are replaced by placeholders before comparing.
 */

const RULES: [RegExp, string][] = [
  [/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`(?:[^`\\]|\\.)*`/g, '<str>'], // quoted values (may contain ids)
  [/\bhttps?:\/\/[^\s)>\]]+/gi, '<url>'],
  [/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, '<id>'], // UUIDs
  [/\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{8,}\b/gi, '<id>'], // hex ids, hashes, commit shas
  [/\b[a-z]+[_-]?\d+[a-z0-9_-]*\b/gi, '<id>'], // generated ids such as el-42, user_17
  [/\d+(?:[.,]\d+)*/g, '<n>'], // any digits left: counts, durations (5000ms → <n>ms), coordinates
];

/** The message with its variable parts replaced, lower-cased, whitespace collapsed, at most 500 chars. */
export function normaliseErrorMessage(message: string): string {
  let out = message;
  for (const [re, placeholder] of RULES) out = out.replace(re, placeholder);
  return out.toLowerCase().replace(/\s+/g, ' ').trim().slice(0, 500);
}

/** Signature of a failure: its type and normalised message (the type keeps a timeout apart from an assertion). */
export function failureSignature(failureType: string | undefined, message: string): string {
  return `${(failureType ?? 'unknown').toLowerCase()}: ${normaliseErrorMessage(message)}`;
}

/** Short stable hash for keys and cluster ids. */
export const signatureHash = (...parts: string[]) => createHash('sha256').update(parts.join('\u0000')).digest('hex').slice(0, 24);
