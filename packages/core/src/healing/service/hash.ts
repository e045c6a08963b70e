/**
 * Small non-cryptographic hashes (core has no node:crypto). Used to turn long selectors
 * and memory keys into short table keys (the original is stored beside it and compared on
 * read, so a collision can never return someone else's entry) and for feature hashing.
 */

/** MurmurHash3 (x86, 32-bit) of the UTF-16 code units of `s`. */
export function murmur32(s: string, seed = 0): number {
  let h = seed >>> 0;
  for (let i = 0; i < s.length; i++) {
    let k = s.charCodeAt(i);
    k = Math.imul(k, 0xcc9e2d51);
    k = (k << 15) | (k >>> 17);
    k = Math.imul(k, 0x1b873593);
    h ^= k;
    h = (h << 13) | (h >>> 19);
    h = (Math.imul(h, 5) + 0xe6546b64) | 0;
  }
  h ^= s.length;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** A 64-bit key as 16 hex characters (two independent 32-bit hashes). */
export function stableKey(s: string): string {
  return murmur32(s, 0x9747b28c).toString(16).padStart(8, '0') + murmur32(s, 0x2f0b3c1d).toString(16).padStart(8, '0');
}
