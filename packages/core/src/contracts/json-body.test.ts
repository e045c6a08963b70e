import { describe, expect, it } from 'vitest';
import { findTooDeep, MAX_JSON_DEPTH, parseJsonBody } from './json-body.ts';

describe('findTooDeep', () => {
  it('counts objects and arrays, not brackets in strings (escaped quotes included)', () => {
    expect(findTooDeep('{"a":[1,{"b":2}]}', 3)).toBeUndefined();
    expect(findTooDeep('{"a":[1,{"b":[]}]}', 3)).toEqual({ path: 'a.1.b', field: 'a' });
    expect(findTooDeep('{"a\\"{[":"[[[[{{{{\\"[[[["}', 1)).toBeUndefined();
    expect(findTooDeep('[[[]]]', 2)).toEqual({ path: '0.0', field: '' });
  });

  it('scans a million levels without recursion, and names the first segments of the path', () => {
    const deep = '{"k\\u0031":'.repeat(1_000_000);
    expect(findTooDeep(deep)).toEqual({ path: 'k1.k1.k1.k1.k1.k1…', field: 'k1' });
  });

  it('parseJsonBody: too deep before malformed; malformed otherwise', () => {
    expect(() => parseJsonBody('['.repeat(MAX_JSON_DEPTH + 1))).toThrow(/deeper than 64 levels/);
    expect(() => parseJsonBody('{"a":')).toThrow(/not valid JSON/);
    expect(parseJsonBody('[[1]]')).toEqual([[1]]);
  });
});
