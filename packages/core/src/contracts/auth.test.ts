import { describe, expect, it } from 'vitest';
import { issues, paths, now, parseInput } from './test-support.ts';
import { AuthSessionSchema, LoginInput, RefreshInput, SignUpInput } from './auth.ts';

describe('auth', () => {
  it('sign-up', () => {
    expect(parseInput(SignUpInput, { email: 'a@b.co', password: 'long enough' })).toEqual({ email: 'a@b.co', password: 'long enough' });
    expect(paths(SignUpInput, { email: 'a@b.co', password: 'short' })).toEqual(['password']);
    expect(issues(SignUpInput, { email: 'a@b.co', password: '        ' })).toEqual([{ path: 'password', message: 'at least 8 characters that are not spaces' }]);
    expect(parseInput(SignUpInput, { email: 'a@b.co', password: 'a b c d e f g h' }).password).toBe('a b c d e f g h'); // a pass phrase
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
