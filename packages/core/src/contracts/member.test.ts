import { describe, expect, it } from 'vitest';
import { issues, paths, id, now, parseInput } from './test-support.ts';
import { MemberRoleUpdateInput, MemberSchema } from './member.ts';

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
