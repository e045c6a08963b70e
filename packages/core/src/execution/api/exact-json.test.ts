import { describe, expect, it } from 'vitest';
import { isExactIntegerText, parseJsonExact } from './exact-json.ts';

describe('parseJsonExact', () => {
  it('keeps integers beyond 2^53 as their exact digits, as text; other numbers stay numbers', () => {
    expect(parseJsonExact('{"id": 9007199254740993, "neg": -12345678901234567890, "safe": 9007199254740991, "f": 1.5e300, "d": 12345678901234567.5}')).toEqual({
      id: '9007199254740993',
      neg: '-12345678901234567890',
      safe: 9007199254740991,
      f: 1.5e300,
      d: 12345678901234567.5,
    });
    expect(parseJsonExact('[1, 90071992547409930, [2]]')).toEqual([1, '90071992547409930', [2]]);
  });

  it('leaves digits inside strings alone, escaped quotes included', () => {
    expect(parseJsonExact('{"s": "9007199254740993", "t": "a\\" 9007199254740993 \\\\", "u": 9007199254740993}')).toEqual({ s: '9007199254740993', t: 'a" 9007199254740993 \\', u: '9007199254740993' });
  });

  it('invalid JSON still fails as JSON.parse does', () => {
    expect(() => parseJsonExact('{"a": 90071992547409931,')).toThrow(SyntaxError);
    expect(() => parseJsonExact('{"a": 1,')).toThrow(SyntaxError);
  });

  it('tells an exact integer kept as text from other strings', () => {
    expect(isExactIntegerText('9007199254740993')).toBe(true);
    expect(isExactIntegerText('9007199254740991')).toBe(false);
    expect(isExactIntegerText('12345678901234567890abc')).toBe(false);
    expect(isExactIntegerText(9007199254740993)).toBe(false);
  });
});
