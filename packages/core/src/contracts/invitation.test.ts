import { describe, expect, it } from 'vitest';
import { issues, paths, parseInput } from './test-support.ts';
import { InvitationCreateInput } from './invitation.ts';

describe('invitation', () => {
  it('defaults role to member and lower-cases email', () => {
    expect(parseInput(InvitationCreateInput, { email: 'Ann@Example.com' })).toEqual({ email: 'ann@example.com', role: 'member' });
    expect(paths(InvitationCreateInput, { email: 'nope' })).toEqual(['email']);
    expect(issues(InvitationCreateInput, { email: 'a@b.co', team: 'x' })).toEqual([{ path: 'team', message: 'unknown field' }]);
  });
});
