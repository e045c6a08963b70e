import { randomBytes } from 'node:crypto';

let lastMs = -1;
let counter = 0;

/**
 * UUID version 7 (RFC 9562): 48-bit Unix milliseconds, a 12-bit counter, then
 * randomness. Resource ids use it so that a sort key of `PREFIX#<id>` lists items in
 * creation order without a second index. The counter (RFC 9562 §6.2, method 1) keeps ids
 * made in the same millisecond by this process in order; on overflow the timestamp
 * advances by one. Event ids stay v4 as the spec requires.
 */
export function uuidv7(nowMs: number = Date.now()): string {
  let ms = Math.max(nowMs, lastMs);
  if (ms === lastMs) {
    counter++;
    if (counter > 0xfff) {
      ms++;
      counter = randomBytes(1)[0]; // restart low so the new millisecond has room
    }
  } else {
    counter = randomBytes(1)[0]; // random start, with at least 3,800 ids of headroom
  }
  lastMs = ms;
  const bytes = randomBytes(16);
  const t = BigInt(ms);
  for (let i = 0; i < 6; i++) bytes[i] = Number((t >> BigInt(8 * (5 - i))) & 0xffn);
  bytes[6] = 0x70 | ((counter >> 8) & 0x0f); // version 7 + counter high bits
  bytes[7] = counter & 0xff;
  bytes[8] = (bytes[8] & 0x3f) | 0x80; // RFC variant
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
