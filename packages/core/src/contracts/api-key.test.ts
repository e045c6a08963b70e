import { describe, expect, it } from 'vitest';
import { issues, paths, id, now, parseInput } from './test-support.ts';
import { ApiKeyCreatedSchema, ApiKeyCreateInput, ApiKeySchema } from './api-key.ts';

describe('api key', () => {
  it('create: defaults permissions to read', () => {
    expect(parseInput(ApiKeyCreateInput, { name: 'ci' })).toEqual({ name: 'ci', permissions: ['read'] });
  });
  it('create: permissions non-empty, unique, known; expiry in the future', () => {
    expect(paths(ApiKeyCreateInput, { name: 'ci', permissions: [] })).toEqual(['permissions']);
    expect(paths(ApiKeyCreateInput, { name: 'ci', permissions: ['read', 'read'] })).toEqual(['permissions']);
    expect(paths(ApiKeyCreateInput, { name: 'ci', permissions: ['root'] })).toEqual(['permissions.0']);
    expect(paths(ApiKeyCreateInput, { name: 'ci', expires_at: '2000-01-01T00:00:00Z' })).toEqual(['expires_at']);
    const future = new Date(Date.now() + 86_400_000).toISOString();
    expect(parseInput(ApiKeyCreateInput, { name: 'ci', expires_at: future }).expires_at).toBe(future);
    expect(paths(ApiKeyCreateInput, { name: 'x'.repeat(101) })).toEqual(['name']);
    expect(issues(ApiKeyCreateInput, { name: 'ci', key_hash: 'x' })).toEqual([{ path: 'key_hash', message: 'unknown field' }]);
  });
  it('public view strips the hash; created view adds the key', () => {
    const row = {
      id: id(), organization_id: id(), project_id: null, name: 'ci', prefix: 'svc_sk_ab12', permissions: ['read'],
      created_at: now, last_used: null, expires_at: null, revoked_at: null, key_hash: 'secret',
    };
    expect(ApiKeySchema.parse(row)).not.toHaveProperty('key_hash');
    expect(ApiKeyCreatedSchema.parse({ ...row, key: 'svc_sk_ab12xyz' }).key).toBe('svc_sk_ab12xyz');
    expect(ApiKeyCreatedSchema.safeParse(row).success).toBe(false);
  });
});
