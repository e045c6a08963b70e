import { describe, expect, it } from 'vitest';
import { issues, paths, parseInput } from './test-support.ts';
import { UserProfileUpdateInput } from './user-profile.ts';

describe('user profile', () => {
  it('update: at least one field, strict', () => {
    expect(parseInput(UserProfileUpdateInput, { onboarding_completed: true })).toEqual({ onboarding_completed: true });
    expect(parseInput(UserProfileUpdateInput, { default_organization_id: null })).toEqual({ default_organization_id: null });
    expect(issues(UserProfileUpdateInput, {})[0]?.message).toBe('at least one field is required');
    expect(issues(UserProfileUpdateInput, { email: 'a@b.co' })).toEqual([{ path: 'email', message: 'unknown field' }]);
    expect(paths(UserProfileUpdateInput, { default_organization_id: 'x' })).toEqual(['default_organization_id']);
  });
});
