import { describe, expect, it } from 'vitest';
import { issues, paths, id, now, parseInput } from './test-support.ts';
import { TestCreateInput, TestSchema, TestUpdateInput } from './test.ts';

describe('test', () => {
  it('create: defaults', () => {
    const project_id = id();
    expect(parseInput(TestCreateInput, { project_id, name: 't', type: 'ui' })).toEqual({
      project_id, name: 't', type: 'ui', steps: [], assertions: [], priority: 'medium', tags: [], timeout_ms: 600_000, parameters: {}, parameter_sets: [],
    });
  });
  it('create: steps keep their type-specific fields', () => {
    const out = parseInput(TestCreateInput, { project_id: id(), name: 't', type: 'ui', steps: [{ type: 'click', selector: '#go' }] });
    expect(out.steps).toEqual([{ type: 'click', selector: '#go' }]);
  });
  it('create: a JSONPath that cannot parse is refused when the test is saved (one with {{variables}} waits until they are filled in)', () => {
    const withPath = (path: string) => ({ project_id: id(), name: 't', type: 'api', steps: [{ type: 'request', method: 'GET', url: '/x' }], assertions: [{ type: 'json', path, exists: true }] });
    expect(issues(TestCreateInput, withPath('$.items.length()'))).toEqual([{ path: 'assertions.0.path', message: expect.stringMatching(/^not a valid JSONPath: /) }]);
    expect(parseInput(TestCreateInput, withPath('$.items[0].id')).assertions).toHaveLength(1);
    expect(parseInput(TestCreateInput, withPath('$.items[{{i}}].id')).assertions).toHaveLength(1);
  });
  it('create: a count range no count is in (min above max) is refused at save, naming max (found by QA)', () => {
    const db = { project_id: id(), name: 't', type: 'db', steps: [{ type: 'sql', connection: { driver: 'postgres', url_env: 'DB' }, statement: 'select 1' }], assertions: [{ type: 'row_count', min: 5, max: 1 }] };
    expect(issues(TestCreateInput, db)).toEqual([{ path: 'assertions.0.max', message: 'max is below min: no count can pass' }]);
    const ui = { project_id: id(), name: 't', type: 'ui', steps: [{ type: 'goto', url: '/' }], assertions: [{ type: 'count', selector: 'li', min: 3, max: 2 }] };
    expect(issues(TestCreateInput, ui)).toEqual([{ path: 'assertions.0.max', message: 'max is below min: no count can pass' }]);
    expect(parseInput(TestCreateInput, { ...ui, assertions: [{ type: 'count', selector: 'li', min: 2, max: 2 }] }).assertions).toHaveLength(1);
  });
  it('create: invalid fields are named', () => {
    expect(paths(TestCreateInput, { project_id: id(), name: 't', type: 'e2e' })).toEqual(['type']);
    expect(paths(TestCreateInput, { project_id: id(), name: 't', type: 'ui', steps: [{ selector: '#a' }] })).toEqual(['steps.0.type']);
    expect(paths(TestCreateInput, { project_id: 'p', name: 't', type: 'ui' })).toEqual(['project_id']);
    expect(issues(TestCreateInput, { project_id: id(), name: 't', type: 'ui', status: 'passed' })).toEqual([{ path: 'status', message: 'unknown field' }]);
  });
  it('create and update: parameter sets are checked where they are given', () => {
    const base = { project_id: id(), name: 't', type: 'ui' };
    expect(parseInput(TestCreateInput, { ...base, parameter_sets: [{ name: 'admin', values: { user: 'ann', admin: true } }] }).parameter_sets).toEqual([{ name: 'admin', values: { user: 'ann', admin: true } }]);
    expect(paths(TestCreateInput, { ...base, parameter_sets: [{ values: {} }] })).toEqual(['parameter_sets.0.values']);
    expect(paths(TestCreateInput, { ...base, parameter_sets: [{ values: { 'a b': 1 } }] })).toEqual(['parameter_sets.0.values.a b']);
    expect(paths(TestUpdateInput, { parameter_sets: [{ values: { a: 1 }, label: 'x' }] })).toEqual(['parameter_sets.0.label']);
    expect(parseInput(TestUpdateInput, { parameter_sets: [] })).toEqual({ parameter_sets: [] });
  });
  it('create and update: timeout_ms from 1 s to 10 minutes; parameters named as variables', () => {
    const base = { project_id: id(), name: 't', type: 'api' };
    expect(parseInput(TestCreateInput, { ...base, timeout_ms: 1000, parameters: { user: 'ann', n: 2, on: true } })).toMatchObject({ timeout_ms: 1000, parameters: { user: 'ann', n: 2, on: true } });
    expect(paths(TestCreateInput, { ...base, timeout_ms: 999 })).toEqual(['timeout_ms']);
    expect(paths(TestCreateInput, { ...base, timeout_ms: 600_001 })).toEqual(['timeout_ms']);
    expect(paths(TestCreateInput, { ...base, timeout_ms: 1.5 })).toEqual(['timeout_ms']);
    expect(issues(TestCreateInput, { ...base, parameters: { env: 'x' } })).toEqual([{ path: 'parameters.env', message: 'not a valid name: secrets and env are reserved ({{secrets.NAME}}, {{env.NAME}})' }]);
    expect(paths(TestCreateInput, { ...base, parameters: { user: null } })).toEqual(['parameters.user']);
    expect(parseInput(TestUpdateInput, { parameters: {} })).toEqual({ parameters: {} });
    expect(paths(TestUpdateInput, { timeout_ms: 0 })).toEqual(['timeout_ms']);
  });
  it('update: at least one field', () => {
    expect(issues(TestUpdateInput, {})[0]?.message).toBe('at least one field is required');
    expect(parseInput(TestUpdateInput, { priority: 'high' })).toEqual({ priority: 'high' });
    // expected_revision says which revision the change is for; it is not a change itself.
    expect(issues(TestUpdateInput, { expected_revision: 2 })[0]?.message).toBe('at least one field is required');
    expect(parseInput(TestUpdateInput, { priority: 'high', expected_revision: 2 })).toEqual({ priority: 'high', expected_revision: 2 });
    expect(paths(TestUpdateInput, { priority: 'high', expected_revision: 0 })).toEqual(['expected_revision']);
  });
  it('resource rejects upper-case status', () => {
    const base = { id: id(), project_id: id(), name: 't', description: null, type: 'api', steps: [], assertions: [], priority: 'low', tags: [], timeout_ms: 600_000, parameters: {}, parameter_sets: [], quarantine: null, revision: 1, created_at: now, updated_at: now };
    expect(TestSchema.safeParse({ ...base, status: 'pending' }).success).toBe(true);
    expect(TestSchema.safeParse({ ...base, status: 'PENDING' }).success).toBe(false);
    expect(TestSchema.safeParse({ ...base, status: 'pending', revision: 0 }).success).toBe(false);
  });
});
