import { describe, expect, it } from 'vitest';
import { issues, paths, id, now, parseInput } from './test-support.ts';
import { ProjectCreateInput, ProjectSchema, ProjectUpdateInput } from './project.ts';

describe('project', () => {
  it('create: aliases url and settings', () => {
    expect(parseInput(ProjectCreateInput, { name: 'p', url: 'https://app.example.com', settings: { a: 1 } })).toEqual({
      name: 'p', app_url: 'https://app.example.com', config: { a: 1 },
    });
    expect(issues(ProjectCreateInput, { name: 'p', settings: {}, config: { a: 1 } })).toEqual([
      { path: 'settings', message: 'use only one of settings, config' },
    ]);
  });
  it('an app on an IPv6 address is a URL like any other (the brackets were refused)', () => {
    expect(parseInput(ProjectCreateInput, { name: 'p', app_url: 'http://[::1]:18299/' }).app_url).toBe('http://[::1]:18299/');
    expect(paths(ProjectCreateInput, { name: 'p', app_url: 'http://[fe80::1]/' })).toEqual(['app_url']);
    expect(paths(ProjectCreateInput, { name: 'p', app_url: 'http://[zz]/' })).toEqual(['app_url']);
  });

  it('a config is at most 100 KB as JSON, said under config (it is sent with every read of the project)', () => {
    expect(paths(ProjectCreateInput, { name: 'p', config: { a: 'x'.repeat(100_001) } })).toEqual(['config']);
    expect(paths(ProjectUpdateInput, { settings: { a: 'x'.repeat(100_001) } })).toEqual(['config']);
    expect(parseInput(ProjectCreateInput, { name: 'p', config: { a: 'x'.repeat(90_000) } }).config?.a).toHaveLength(90_000);
  });

  it('create: app_url must be http(s); repo_url may be a path', () => {
    expect(paths(ProjectCreateInput, { name: 'p', app_url: 'ftp://x.example.com' })).toEqual(['app_url']);
    expect(paths(ProjectCreateInput, { name: 'p', url: 'javascript:alert(1)' })).toEqual(['app_url']);
    expect(parseInput(ProjectCreateInput, { name: 'p', repo_url: '/home/me/repo' }).repo_url).toBe('/home/me/repo');
    expect(parseInput(ProjectCreateInput, { name: 'p', repo_url: 'git@github.com:o/r.git' }).repo_url).toBe('git@github.com:o/r.git');
  });
  it('create: strict and name required', () => {
    expect(issues(ProjectCreateInput, { name: 'p', colour: 'red' })).toEqual([{ path: 'colour', message: 'unknown field' }]);
    expect(issues(ProjectCreateInput, {})).toEqual([{ path: 'name', message: 'required' }]);
  });
  it('update: partial with aliases, nullable urls, at least one field', () => {
    expect(parseInput(ProjectUpdateInput, { url: 'http://localhost:3000' })).toEqual({ app_url: 'http://localhost:3000' });
    expect(parseInput(ProjectUpdateInput, { app_url: null })).toEqual({ app_url: null });
    expect(issues(ProjectUpdateInput, {})[0]).toEqual({ path: '', message: 'at least one field is required' });
    expect(paths(ProjectUpdateInput, { name: '' })).toEqual(['name']);
  });
  it('resource parses', () => {
    expect(ProjectSchema.safeParse({ id: id(), organization_id: id(), name: 'p', app_url: null, repo_url: null, config: {}, created_at: now, updated_at: now }).success).toBe(true);
  });
});
