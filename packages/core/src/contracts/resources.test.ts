import { describe, expect, it } from 'vitest';
import { AppError } from '../errors.ts';
import { parseInput } from './parse.ts';
import { OrganizationCreateInput, OrganizationSchema } from './organization.ts';
import { MemberRoleUpdateInput, MemberSchema } from './member.ts';
import { UserProfileUpdateInput } from './user-profile.ts';
import { ProjectCreateInput, ProjectSchema, ProjectUpdateInput } from './project.ts';
import { TestCreateInput, TestSchema, TestUpdateInput } from './test.ts';
import { ApiKeyCreatedSchema, ApiKeyCreateInput, ApiKeySchema } from './api-key.ts';
import { AuditLogQuery, AuditLogSchema } from './audit-log.ts';
import { InvitationCreateInput } from './invitation.ts';
import { AuthSessionSchema, LoginInput, RefreshInput, SignUpInput } from './auth.ts';
import { ErrorBodySchema } from './error-body.ts';

const id = () => crypto.randomUUID();
const now = '2025-01-31T12:00:00.000Z';

function issues(schema: Parameters<typeof parseInput>[0], data: unknown, where?: 'body' | 'query' | 'params') {
  try {
    parseInput(schema, data, where);
  } catch (e) {
    if (!(e instanceof AppError)) throw e;
    return (e.details as { issues: { path: string; message: string }[] }).issues;
  }
  throw new Error('expected a validation failure');
}
const paths = (...a: Parameters<typeof issues>) => issues(...a).map((i) => i.path);

describe('organization', () => {
  it('create: alias ai_budget_daily_usd', () => {
    expect(parseInput(OrganizationCreateInput, { name: 'Acme', ai_budget_daily_usd: 5 })).toEqual({ name: 'Acme', ai_budget_daily: 5 });
    expect(issues(OrganizationCreateInput, { name: 'Acme', ai_budget_daily_usd: 5, ai_budget_daily: 6 })).toEqual([
      { path: 'ai_budget_daily_usd', message: 'use only one of ai_budget_daily_usd, ai_budget_daily' },
    ]);
  });
  it('create: strict, slug pattern, name length', () => {
    expect(issues(OrganizationCreateInput, { name: 'Acme', owner: 'x' })).toEqual([{ path: 'owner', message: 'unknown field' }]);
    expect(paths(OrganizationCreateInput, { name: 'Acme', slug: '-bad-' })).toEqual(['slug']);
    expect(paths(OrganizationCreateInput, { name: 'Acme', slug: 'Upper' })).toEqual(['slug']);
    expect(parseInput(OrganizationCreateInput, { name: 'Acme', slug: 'acme-inc' }).slug).toBe('acme-inc');
    expect(paths(OrganizationCreateInput, { name: '' })).toEqual(['name']);
    expect(paths(OrganizationCreateInput, { name: 'x'.repeat(256) })).toEqual(['name']);
    expect(paths(OrganizationCreateInput, { name: 'a', plan: 'gold' })).toEqual(['plan']);
    expect(paths(OrganizationCreateInput, { name: 'a', ai_budget_monthly: -1 })).toEqual(['ai_budget_monthly']);
  });
  it('resource: plan defaults to free', () => {
    const org = OrganizationSchema.parse({
      id: id(), name: 'a', slug: 'acme', ai_budget_daily: null, ai_budget_monthly: 100, ai_spend_today_usd: 0,
      features: {}, settings: {}, stripe_customer_id: null, created_at: now,
    });
    expect(org.plan).toBe('free');
  });
});

describe('member', () => {
  it('role update is strict and validated', () => {
    expect(parseInput(MemberRoleUpdateInput, { role: 'admin' })).toEqual({ role: 'admin' });
    expect(paths(MemberRoleUpdateInput, { role: 'owner' })).toEqual(['role']);
    expect(issues(MemberRoleUpdateInput, { role: 'admin', x: 1 })).toEqual([{ path: 'x', message: 'unknown field' }]);
  });
  it('resource rejects an unknown status', () => {
    const r = MemberSchema.safeParse({ id: id(), organization_id: id(), user_id: 'u', email: 'a@b.co', role: 'member', status: 'gone', created_at: now });
    expect(r.success).toBe(false);
  });
});

describe('user profile', () => {
  it('update: at least one field, strict', () => {
    expect(parseInput(UserProfileUpdateInput, { onboarding_completed: true })).toEqual({ onboarding_completed: true });
    expect(parseInput(UserProfileUpdateInput, { default_organization_id: null })).toEqual({ default_organization_id: null });
    expect(issues(UserProfileUpdateInput, {})[0]?.message).toBe('at least one field is required');
    expect(issues(UserProfileUpdateInput, { email: 'a@b.co' })).toEqual([{ path: 'email', message: 'unknown field' }]);
    expect(paths(UserProfileUpdateInput, { default_organization_id: 'x' })).toEqual(['default_organization_id']);
  });
});

describe('project', () => {
  it('create: aliases url and settings', () => {
    expect(parseInput(ProjectCreateInput, { name: 'p', url: 'https://app.example.com', settings: { a: 1 } })).toEqual({
      name: 'p', app_url: 'https://app.example.com', config: { a: 1 },
    });
    expect(issues(ProjectCreateInput, { name: 'p', settings: {}, config: { a: 1 } })).toEqual([
      { path: 'settings', message: 'use only one of settings, config' },
    ]);
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

describe('test', () => {
  it('create: defaults', () => {
    const project_id = id();
    expect(parseInput(TestCreateInput, { project_id, name: 't', type: 'ui' })).toEqual({
      project_id, name: 't', type: 'ui', steps: [], assertions: [], priority: 'medium', tags: [],
    });
  });
  it('create: steps keep their type-specific fields', () => {
    const out = parseInput(TestCreateInput, { project_id: id(), name: 't', type: 'ui', steps: [{ type: 'click', selector: '#go' }] });
    expect(out.steps).toEqual([{ type: 'click', selector: '#go' }]);
  });
  it('create: invalid fields are named', () => {
    expect(paths(TestCreateInput, { project_id: id(), name: 't', type: 'e2e' })).toEqual(['type']);
    expect(paths(TestCreateInput, { project_id: id(), name: 't', type: 'ui', steps: [{ selector: '#a' }] })).toEqual(['steps.0.type']);
    expect(paths(TestCreateInput, { project_id: 'p', name: 't', type: 'ui' })).toEqual(['project_id']);
    expect(issues(TestCreateInput, { project_id: id(), name: 't', type: 'ui', status: 'passed' })).toEqual([{ path: 'status', message: 'unknown field' }]);
  });
  it('update: at least one field', () => {
    expect(issues(TestUpdateInput, {})[0]?.message).toBe('at least one field is required');
    expect(parseInput(TestUpdateInput, { priority: 'high' })).toEqual({ priority: 'high' });
  });
  it('resource rejects upper-case status', () => {
    const base = { id: id(), project_id: id(), name: 't', description: null, type: 'api', steps: [], assertions: [], priority: 'low', tags: [], created_at: now, updated_at: now };
    expect(TestSchema.safeParse({ ...base, status: 'pending' }).success).toBe(true);
    expect(TestSchema.safeParse({ ...base, status: 'PENDING' }).success).toBe(false);
  });
});

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

describe('audit log', () => {
  it('query extends list query', () => {
    expect(parseInput(AuditLogQuery, { action: 'project.create' }, 'query')).toEqual({ limit: 50, action: 'project.create' });
    expect(paths(AuditLogQuery, { action: 'x'.repeat(51) }, 'query')).toEqual(['action']);
    expect(issues(AuditLogQuery, { user: 'u' }, 'query')).toEqual([{ path: 'user', message: 'unknown field' }]);
  });
  it('resource enforces column lengths', () => {
    const base = { id: id(), organization_id: id(), user_id: 'u', resource: 'r', metadata: {}, timestamp: now };
    expect(AuditLogSchema.safeParse({ ...base, action: 'a' }).success).toBe(true);
    expect(AuditLogSchema.safeParse({ ...base, action: 'a'.repeat(51) }).success).toBe(false);
  });
});

describe('invitation', () => {
  it('defaults role to member and lower-cases email', () => {
    expect(parseInput(InvitationCreateInput, { email: 'Ann@Example.com' })).toEqual({ email: 'ann@example.com', role: 'member' });
    expect(paths(InvitationCreateInput, { email: 'nope' })).toEqual(['email']);
    expect(issues(InvitationCreateInput, { email: 'a@b.co', team: 'x' })).toEqual([{ path: 'team', message: 'unknown field' }]);
  });
});

describe('auth', () => {
  it('sign-up', () => {
    expect(parseInput(SignUpInput, { email: 'a@b.co', password: 'long enough' })).toEqual({ email: 'a@b.co', password: 'long enough' });
    expect(paths(SignUpInput, { email: 'a@b.co', password: 'short' })).toEqual(['password']);
    expect(issues(SignUpInput, { email: 'a@b.co', password: 'long enough', role: 'admin' })).toEqual([{ path: 'role', message: 'unknown field' }]);
  });
  it('login and refresh', () => {
    expect(paths(LoginInput, { email: 'a@b.co' })).toEqual(['password']);
    expect(parseInput(RefreshInput, {})).toEqual({});
    expect(paths(RefreshInput, { refresh_token: '' })).toEqual(['refresh_token']);
  });
  it('session', () => {
    expect(AuthSessionSchema.safeParse({ user: { id: 'u', email: 'a@b.co', display_name: null }, access_token: 't', expires_at: now, refresh_token: 'r' }).success).toBe(true);
  });
});

describe('error body', () => {
  it('accepts the one error shape', () => {
    expect(ErrorBodySchema.safeParse({ error: { code: 'NOT_FOUND', message: 'x' } }).success).toBe(true);
    expect(ErrorBodySchema.safeParse({ error: { code: 'NOT_FOUND' } }).success).toBe(false);
  });
});
