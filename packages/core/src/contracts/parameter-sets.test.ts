import { describe, expect, it } from 'vitest';
import { issues } from './test-support.ts';
import { caseId, caseName, parameterCases, parameterSetName, ParameterSets, splitCaseId } from './parameter-sets.ts';

describe('parameter sets', () => {
  it('a set without a name is named by its values', () => {
    expect(parameterSetName({ values: { role: 'admin', user: 'ann' } })).toBe('role=admin, user=ann');
    expect(parameterSetName({ name: 'admins', values: { role: 'admin' } })).toBe('admins');
    expect(parameterSetName({ values: { q: 'x'.repeat(200) } })).toHaveLength(100);
    // Brackets would make the case's name "t [a[1]]" ambiguous.
    expect(parameterSetName({ values: { q: 'a[1]' } })).toBe('q=a 1 ');
  });

  it('two sets with one name are refused, naming the later set', () => {
    expect(issues(ParameterSets, [{ values: { n: 1 } }, { values: { n: 1 } }])).toEqual([{ path: '1.name', message: 'set 2 is named "n=1" like set 1 (its values give that name): give each set a name of its own' }]);
    expect(issues(ParameterSets, [{ name: 'a', values: { n: 1 } }, { name: 'a', values: { n: 2 } }])[0].path).toBe('1.name');
    expect(ParameterSets.safeParse([{ name: 'a', values: { n: 1 } }, { name: 'b', values: { n: 1 } }]).success).toBe(true);
  });

  it('bad sets name the field', () => {
    expect(issues(ParameterSets, [{ values: {} }])).toEqual([{ path: '0.values', message: 'a parameter set needs at least one value' }]);
    expect(issues(ParameterSets, [{ values: { secrets: 'x' } }])[0].path).toBe('0.values.secrets');
    expect(issues(ParameterSets, [{ values: { n: { nested: 1 } } }])[0].path).toBe('0.values.n');
    expect(issues(ParameterSets, [{ name: 'a]b', values: { n: 1 } }])[0].path).toBe('0.name');
    expect(issues(ParameterSets, Array.from({ length: 101 }, (_, i) => ({ values: { n: i } })))[0].path).toBe('');
  });

  it('cases: ids, names and values, in order', () => {
    const cases = parameterCases('t1', [{ name: 'ann', values: { user: 'ann' } }, { values: { user: 'bob' } }]);
    expect(cases).toEqual([
      { test_id: 't1', index: 1, name: 'ann', values: { user: 'ann' } },
      { test_id: 't1', index: 2, name: 'user=bob', values: { user: 'bob' } },
    ]);
    expect(caseId('t1', 2)).toBe('t1[2]');
    expect(caseName('sign in', 'ann')).toBe('sign in [ann]');
    expect(caseName('x'.repeat(255), 'ann')).toHaveLength(255);
  });

  it('a case id splits back into its test and set; other ids are tests', () => {
    expect(splitCaseId('0199b2c4-0000-7000-8000-000000000000[12]')).toEqual({ testId: '0199b2c4-0000-7000-8000-000000000000', index: 12 });
    expect(splitCaseId('tests/login.json#2[1]')).toEqual({ testId: 'tests/login.json#2', index: 1 });
    expect(splitCaseId('tests/login.json')).toEqual({ testId: 'tests/login.json' });
    expect(splitCaseId('t[0]')).toEqual({ testId: 't[0]' });
    expect(splitCaseId('t[101]')).toEqual({ testId: 't[101]' });
  });
});
