import { describe, expect, it } from 'vitest';
import { failureSignature, normaliseErrorMessage, signatureHash } from './failure-signature.ts';

describe('failure signatures', () => {
  it('strips numbers, ids, quoted values and URLs', () => {
    const a = normaliseErrorMessage('Timeout 30000ms exceeded waiting for selector "#buy-42" at https://shop.test/cart?id=9');
    const b = normaliseErrorMessage("Timeout 5000ms exceeded waiting for selector '#checkout' at https://shop.test/cart?id=11");
    expect(a).toBe('timeout <n>ms exceeded waiting for selector <str> at <url>');
    expect(a).toBe(b);
    expect(normaliseErrorMessage('user 3f2b6a8e-6a4c-4f7e-9d3b-0c1e2a3b4c5d not found (commit 9fceb02d0ae598e95dc970b74767f19372d61af8)')).toBe('user <id> not found (commit <id>)');
    expect(normaliseErrorMessage('element el-42 detached;   row 17')).toBe('element <id> detached; row <n>');
  });

  it('keeps different failure kinds apart and hashes stably', () => {
    expect(failureSignature('timeout', 'x 1')).not.toBe(failureSignature('assertion', 'x 2'));
    expect(failureSignature('timeout', 'x 1')).toBe(failureSignature('Timeout', 'x 2'));
    expect(signatureHash('a', 'b')).toBe(signatureHash('a', 'b'));
    expect(signatureHash('a', 'b')).not.toBe(signatureHash('ab', ''));
  });
});
