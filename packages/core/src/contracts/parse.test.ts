import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseInput } from './parse.ts';
import { issues } from './test-support.ts';
import { AppError } from '../errors.ts';

const issuesOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(AppError);
    expect((e as AppError).code).toBe('VALIDATION_FAILED');
    expect((e as AppError).status).toBe(400);
    return ((e as AppError).details as { issues: { path: string; message: string }[] }).issues;
  }
  throw new Error('expected a validation failure');
};

describe('parseInput', () => {
  const S = z.strictObject({ a: z.strictObject({ b: z.array(z.strictObject({ c: z.number() })) }) });
  it('returns the parsed value', () => {
    expect(parseInput(S, { a: { b: [{ c: 1 }] } })).toEqual({ a: { b: [{ c: 1 }] } });
  });
  it('uses dotted paths', () => {
    expect(issuesOf(() => parseInput(S, { a: { b: [{ c: 'x' }] } }))[0]?.path).toBe('a.b.0.c');
  });
  it('reports each unknown key at its own path', () => {
    expect(issuesOf(() => parseInput(S, { a: { b: [{ c: 1, d: 1, e: 2 }] }, z: 0 }))).toEqual(
      expect.arrayContaining([
        { path: 'z', message: 'unknown field' },
        { path: 'a.b.0.d', message: 'unknown field' },
        { path: 'a.b.0.e', message: 'unknown field' },
      ]),
    );
  });
  it('says "required" for a missing field', () => {
    expect(issuesOf(() => parseInput(S, { a: {} }))).toEqual([{ path: 'a.b', message: 'required' }]);
  });
  it('says "required" for a missing enum field too (with its options), and "expected a number" for text that is not one', () => {
    const E = z.strictObject({ type: z.enum(['ui', 'api']), revision: z.coerce.number().int() });
    expect(issuesOf(() => parseInput(E, { revision: 'abc' }, 'params'))).toEqual([
      { path: 'type', message: 'required (expected one of "ui"|"api")' },
      { path: 'revision', message: 'expected a number' },
    ]);
    // A wrong value (not a missing one) still lists the options.
    expect(issuesOf(() => parseInput(E, { type: 'db', revision: 1 }))[0]?.message).toMatch(/^Invalid option: expected one of/);
  });
  it("says why a map's key is refused, not only that it is", () => {
    const M = z.strictObject({ values: z.record(z.string().regex(/^[a-z]+$/, 'lower-case letters only'), z.number()) });
    expect(issuesOf(() => parseInput(M, { values: { ok: 1, 'Not-OK': 2 } }))).toEqual([{ path: 'values.Not-OK', message: 'not a valid name: lower-case letters only' }]);
  });
  it('names where the root value came from', () => {
    expect(issuesOf(() => parseInput(S, null, 'query'))[0]?.message).toMatch(/^query: /);
  });
});

describe('parseInput unions', () => {
  it('reports the branch that got furthest', () => {
    const U = z.union([z.strictObject({ kind: z.literal('a'), n: z.number() }), z.strictObject({ kind: z.literal('b'), s: z.string() })]);
    expect(issues(U, { kind: 'b', s: 1 })).toEqual(expect.arrayContaining([expect.objectContaining({ path: 's' })]));
    expect(issues(z.strictObject({ u: U }), { u: 'x' })[0]?.path).toBe('u');
  });

  it('a union field left out is "required", not "Invalid input"', () => {
    const Image = z.union([z.string(), z.strictObject({ baseline_id: z.string() })]);
    expect(issuesOf(() => parseInput(z.strictObject({ baseline: Image, actual: Image }), { baseline: 'x' }))).toEqual([{ path: 'actual', message: 'required' }]);
  });
});

describe('parseInput discriminated unions', () => {
  const Step = z.discriminatedUnion('type', [z.strictObject({ type: z.literal('click'), at: z.string() }), z.strictObject({ type: z.literal('goto'), url: z.string() })]);
  const Test = z.strictObject({ steps: z.array(Step) });

  it('an unknown type says what it got, and the option likely meant', () => {
    expect(issues(Test, { steps: [{ type: 'goto', url: '/' }, { type: 'clik', at: '#a' }] })).toEqual([
      { path: 'steps.1.type', message: 'unknown type "clik"; did you mean "click"? (expected one of click, goto)' },
    ]);
    expect(issues(Test, { steps: [{ type: 'teleport' }] })).toEqual([{ path: 'steps.0.type', message: 'unknown type "teleport" (expected one of click, goto)' }]);
  });

  it('a missing type is required', () => {
    expect(issues(Test, { steps: [{ at: '#a' }] })).toEqual([{ path: 'steps.0.type', message: 'required (one of click, goto)' }]);
  });
});

describe('parseInput sizes and formats in plain words', () => {
  const S = z.strictObject({
    name: z.string().trim().min(1).max(5),
    count: z.int().min(1).max(10),
    tags: z.array(z.string()).min(1).max(2),
    below: z.number().lt(3),
    url: z.url(),
    email: z.email(),
    own: z.string().max(2, 'at most two letters, as the spec says'),
  });

  it("says a length's limit and what it got, a number's bound, a list's size and a format, instead of zod's words", () => {
    expect(issues(S, { name: 'abcdefg', count: 0, tags: ['a', 'b', 'c'], below: 3, url: 'shop', email: 'x', own: 'ok' })).toEqual([
      { path: 'name', message: 'at most 5 characters (got 7)' },
      { path: 'count', message: 'at least 1' },
      { path: 'tags', message: 'at most 2 items (got 3)' },
      { path: 'below', message: 'less than 3' },
      { path: 'url', message: 'not a valid URL (e.g. https://shop.example.com)' },
      { path: 'email', message: 'not a valid email address' },
    ]);
  });

  it('an empty required text or list says so; a message the schema wrote is kept', () => {
    expect(issues(S, { name: '   ', count: 11, tags: [], below: 1, url: 'https://a.example', email: 'a@b.example', own: 'abc' })).toEqual([
      { path: 'name', message: 'must not be empty' },
      { path: 'count', message: 'at most 10' },
      { path: 'tags', message: 'must have at least 1 item' },
      { path: 'own', message: 'at most two letters, as the spec says' },
    ]);
  });
});
