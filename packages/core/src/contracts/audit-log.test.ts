import { describe, expect, it } from 'vitest';
import { issues, paths, id, now, parseInput } from './test-support.ts';
import { AuditLogQuery, AuditLogSchema } from './audit-log.ts';

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
