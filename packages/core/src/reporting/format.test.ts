import { describe, expect, it } from 'vitest';
import { humanDuration, percent, seconds, stripControl } from './format.ts';

describe('report formatting', () => {
  it('writes seconds with three decimals', () => {
    expect(seconds(0)).toBe('0.000');
    expect(seconds(1234)).toBe('1.234');
    expect(seconds(5)).toBe('0.005');
    expect(seconds(-3)).toBe('0.000');
    expect(seconds(Number.NaN)).toBe('0.000');
  });

  it('writes short human durations', () => {
    expect(humanDuration(850)).toBe('850 ms');
    expect(humanDuration(1234)).toBe('1.23 s');
    expect(humanDuration(40_400)).toBe('40.4 s');
    expect(humanDuration(123_000)).toBe('2 min 03 s');
    expect(humanDuration(3_720_000)).toBe('1 h 02 min');
  });

  it('keeps what XML 1.0 allows and drops the rest', () => {
    expect(stripControl('a\tb\nc\rd')).toBe('a\tb\nc\rd');
    expect(stripControl('x\u0000\u0001\u0008\u000b\u000c\u001f\u007f\u0085y')).toBe('xy');
    expect(stripControl('lone \uD800 \uDC00 pair 🔍 end \uFFFE\uFFFF')).toBe('lone   pair 🔍 end ');
    expect(stripControl('Пошук 検索 café')).toBe('Пошук 検索 café');
  });

  it('writes confidence as a percentage', () => {
    expect(percent(0.934)).toBe('93%');
    expect(percent(1.2)).toBe('100%');
  });
});
