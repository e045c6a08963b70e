import { describe, it, expect } from 'vitest';
import { evaluateJsonPath, firstValue, parseJsonPath, resolveJsonPath, JsonPathError } from './jsonpath.ts';

const doc = {
  total: 3,
  items: [
    { id: 1, name: 'Ada', tags: ['admin', 'ops'], address: { city: 'London' } },
    { id: 2, name: 'Grace', tags: [], address: { city: 'Arlington' } },
    { id: 3, name: 'Linus', tags: ['dev'], address: null },
  ],
  'content-type': 'application/json',
  'odd key': { "it's": true },
  meta: { length: 99, next: null, empty: '' },
  title: 'hello',
};

const values = (path: string) => evaluateJsonPath(doc, path).values;

describe('evaluateJsonPath', () => {
  it('$ is the whole document', () => {
    expect(evaluateJsonPath(doc, '$')).toEqual({ found: true, values: [doc], definite: true });
  });

  it('dot and bracket members', () => {
    expect(values('$.total')).toEqual([3]);
    expect(values("$['total']")).toEqual([3]);
    expect(values('$["total"]')).toEqual([3]);
    expect(values('$.items[0].address.city')).toEqual(['London']);
    expect(values("$['items'][1]['name']")).toEqual(['Grace']);
  });

  it('dot names may contain dashes; brackets take any key, with escapes', () => {
    expect(values('$.content-type')).toEqual(['application/json']);
    expect(values("$['odd key']['it\\'s']")).toEqual([true]);
    expect(values('$["odd key"]["it\'s"]')).toEqual([true]);
  });

  it('indices, negative indices and out-of-range', () => {
    expect(values('$.items[-1].name')).toEqual(['Linus']);
    expect(values('$.items[-3].id')).toEqual([1]);
    expect(evaluateJsonPath(doc, '$.items[3]')).toEqual({ found: false, values: [], definite: true });
    expect(evaluateJsonPath(doc, '$.items[-4]').found).toBe(false);
    expect(evaluateJsonPath(doc, '$.total[0]').found).toBe(false);
  });

  it('wildcards over arrays and objects', () => {
    expect(values('$.items[*].id')).toEqual([1, 2, 3]);
    expect(values('$.items.*.name')).toEqual(['Ada', 'Grace', 'Linus']);
    expect(values('$.items[0].address[*]')).toEqual(['London']);
    expect(values('$.items[*].tags[*]')).toEqual(['admin', 'ops', 'dev']);
    expect(evaluateJsonPath(doc, '$.items[*].id').definite).toBe(false);
  });

  it('recursive descent', () => {
    expect(values('$..city')).toEqual(['London', 'Arlington']);
    expect(values('$..id')).toEqual([1, 2, 3]);
    expect(values('$..tags[0]')).toEqual(['admin', 'dev']);
    expect(values("$..['name']")).toEqual(['Ada', 'Grace', 'Linus']);
    expect(values('$.items[0]..*')).toEqual([1, 'Ada', ['admin', 'ops'], { city: 'London' }, 'admin', 'ops', 'London']);
  });

  it('.length of arrays and strings; a real length member wins', () => {
    expect(values('$.items.length')).toEqual([3]);
    expect(values('$.items[0].tags.length')).toEqual([2]);
    expect(values('$.items[1].tags.length')).toEqual([0]);
    expect(values('$.title.length')).toEqual([5]);
    expect(values('$.meta.length')).toEqual([99]);
    expect(evaluateJsonPath(doc, '$.total.length').found).toBe(false);
  });

  it('null is a value, a missing member is not', () => {
    expect(evaluateJsonPath(doc, '$.meta.next')).toEqual({ found: true, values: [null], definite: true });
    expect(evaluateJsonPath(doc, '$.meta.empty').values).toEqual(['']);
    expect(evaluateJsonPath(doc, '$.meta.nope').found).toBe(false);
    expect(evaluateJsonPath(doc, '$.items[2].address.city').found).toBe(false);
    expect(evaluateJsonPath({ a: undefined }, '$.a').found).toBe(false);
    expect(evaluateJsonPath(undefined, '$').found).toBe(false);
  });

  it('does not walk the prototype chain', () => {
    expect(evaluateJsonPath({}, '$.constructor').found).toBe(false);
    expect(evaluateJsonPath({}, '$.__proto__').found).toBe(false);
  });

  it('unions and slices', () => {
    expect(values('$.items[0,2].id')).toEqual([1, 3]);
    expect(values("$.items[0]['id','name']")).toEqual([1, 'Ada']);
    expect(values('$.items[1:].id')).toEqual([2, 3]);
    expect(values('$.items[:2].id')).toEqual([1, 2]);
    expect(values('$.items[-2:].id')).toEqual([2, 3]);
    expect(values('$.items[::2].id')).toEqual([1, 3]);
    expect(values('$.items[::-1].id')).toEqual([3, 2, 1]);
    expect(values('$.items[5:9]')).toEqual([]);
    expect(evaluateJsonPath(doc, '$.items[0,1]').definite).toBe(false);
  });

  it('works on primitives and top-level arrays', () => {
    expect(values('$[0]')).toEqual([]);
    expect(evaluateJsonPath([10, 20], '$[1]').values).toEqual([20]);
    expect(evaluateJsonPath([10, 20], '$.length').values).toEqual([2]);
    expect(evaluateJsonPath('text', '$').values).toEqual(['text']);
  });
});

describe('firstValue and resolveJsonPath', () => {
  it('firstValue returns the first match or undefined', () => {
    expect(firstValue(doc, '$..name')).toBe('Ada');
    expect(firstValue(doc, '$.nope')).toBeUndefined();
  });

  it('definite paths resolve to one value, indefinite ones to a list', () => {
    expect(resolveJsonPath(doc, '$.items[0].id')).toEqual({ found: true, value: 1, definite: true });
    expect(resolveJsonPath(doc, '$.items[9].id')).toEqual({ found: false, value: undefined, definite: true });
    expect(resolveJsonPath(doc, '$.items[*].id')).toEqual({ found: true, value: [1, 2, 3], definite: false });
    expect(resolveJsonPath({ items: [] }, '$.items[*].id')).toEqual({ found: true, value: [], definite: false });
  });
});

describe('malformed paths', () => {
  const bad: Array<[string, RegExp]> = [
    ['', /empty/],
    ['items[0]', /starts with \$/],
    ['$.', /ends with \./],
    ['$.items[', /unclosed \[ at position 7/],
    ['$.items[0', /unclosed \[/],
    ['$.items[]', /empty \[\] at position 7/],
    ["$['abc]", /unterminated string starting at position 2/],
    ['$.items[?(@.id > 1)]', /filter and script expressions .* not supported/],
    ['$.items[abc]', /expected a quoted name, an index, \* or a slice at position 8/],
    ['$.items[0 1]', /expected , or \] at position 10/],
    ['$.items[::0]', /slice step cannot be 0/],
    ['$items', /unexpected "i" at position 1/],
    ['$..', /expected a name, \* or \[ after \.\./],
    ['$. a', /expected a name after \. at position 2/],
  ];
  for (const [path, message] of bad) {
    it(`rejects ${JSON.stringify(path)}`, () => {
      let error: unknown;
      try {
        parseJsonPath(path);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(JsonPathError);
      expect((error as Error).message).toMatch(message);
      expect((error as Error).message).toContain(`invalid JSONPath ${JSON.stringify(path)}`);
    });
  }
});
