import { describe, it, expect } from 'vitest';
import { Fingerprint } from '../contracts/fingerprint.ts';
import { isEmptyFingerprint, parseFingerprint } from './parse-fingerprint.ts';

describe('parseFingerprint', () => {
  it('keeps known fields, drops unknown and wrongly typed ones (numbers become strings)', () => {
    const fp = parseFingerprint({ tag: 'BUTTON', id: 'go', classes: ['a', 3, 'b'], text: 'Go', box: { x: '1', y: 2, width: 3, height: 4 }, isButton: 'yes', extra: 1, neighborText: 'Near' });
    expect(fp).toEqual({ tag: 'button', id: 'go', classes: ['a', '3', 'b'], text: 'Go', box: { x: 1, y: 2, width: 3, height: 4 }, neighborText: ['Near'] });
    expect(Fingerprint.safeParse(fp).success).toBe(true);
  });
  it('accepts classes as a space-separated string', () => {
    expect(parseFingerprint({ classes: 'btn  btn-primary' })?.classes).toEqual(['btn', 'btn-primary']);
  });
  it('rejects non-objects and recognises empty fingerprints', () => {
    for (const v of [null, undefined, 'x', 1, [], true]) expect(parseFingerprint(v)).toBeUndefined();
    expect(isEmptyFingerprint(parseFingerprint({ visible: true, nonsense: 1 })!)).toBe(true);
  });
  it('sanitises and truncates text, caps lists and attribute maps', () => {
    const fp = parseFingerprint({
      text: `a\ud800${'x'.repeat(10_000)}`,
      classes: Array.from({ length: 1000 }, (_, i) => `c${i}`),
      attributes: Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`data-${i}`, 'v'])),
      box: { x: 0, y: 0, width: -5, height: 1 },
    })!;
    expect(fp.text!.length).toBe(2000);
    expect(fp.text!.isWellFormed()).toBe(true);
    expect(fp.classes!.length).toBe(64);
    expect(Object.keys(fp.attributes!).length).toBe(64);
    expect(fp.box).toBeUndefined();
    expect(Fingerprint.safeParse(fp).success).toBe(true);
  });
});
