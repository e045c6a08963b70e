import { describe, expect, it } from 'vitest';
import { isRole, requiredRoleForMethod, roleAtLeast, roleForScopes, roles, type Role } from './roles.ts';

describe('roleAtLeast', () => {
  it('orders viewer < member < admin', () => {
    expect(roles).toEqual(['viewer', 'member', 'admin']);
    const table: [Role, Role, boolean][] = [
      ['viewer', 'viewer', true],
      ['viewer', 'member', false],
      ['viewer', 'admin', false],
      ['member', 'viewer', true],
      ['member', 'member', true],
      ['member', 'admin', false],
      ['admin', 'viewer', true],
      ['admin', 'member', true],
      ['admin', 'admin', true],
    ];
    for (const [actual, required, expected] of table) {
      expect(roleAtLeast(actual, required), `${actual} >= ${required}`).toBe(expected);
    }
  });

  it('treats unknown roles as granting nothing', () => {
    expect(roleAtLeast('owner' as Role, 'viewer')).toBe(false);
    expect(roleAtLeast('admin', 'superuser' as Role)).toBe(false);
    expect(isRole('member')).toBe(true);
    expect(isRole('owner')).toBe(false);
  });
});

describe('roleForScopes', () => {
  it('maps the highest scope to a role', () => {
    expect(roleForScopes(['read'])).toBe('viewer');
    expect(roleForScopes(['write'])).toBe('member');
    expect(roleForScopes(['admin'])).toBe('admin');
    expect(roleForScopes(['read', 'write'])).toBe('member');
    expect(roleForScopes(['write', 'read'])).toBe('member');
    expect(roleForScopes(['read', 'admin', 'write'])).toBe('admin');
  });

  it('falls back to viewer for no scopes', () => {
    expect(roleForScopes([])).toBe('viewer');
  });
});

describe('requiredRoleForMethod', () => {
  it('requires viewer for safe methods and member for the rest', () => {
    for (const m of ['GET', 'HEAD', 'OPTIONS', 'get', 'Head']) expect(requiredRoleForMethod(m)).toBe('viewer');
    for (const m of ['POST', 'PUT', 'PATCH', 'DELETE', 'post', 'TRACE', 'WHATEVER']) {
      expect(requiredRoleForMethod(m)).toBe('member');
    }
  });
});
