import { describe, expect, it } from 'vitest';
import * as auth from './index.ts';

describe('auth public surface', () => {
  it('re-exports the auth primitives', () => {
    for (const name of [
      'hashPassword',
      'verifyPassword',
      'passwordPolicyIssues',
      'generateApiKey',
      'hashApiKey',
      'looksLikeApiKey',
      'roleAtLeast',
      'roleForScopes',
      'requiredRoleForMethod',
      'generateRefreshToken',
      'generateSigningKey',
      'createLocalIssuer',
      'createJwtVerifier',
    ] as const) {
      expect(typeof auth[name], name).toBe('function');
    }
    expect(auth.apiKeyScopes).toEqual(['read', 'write', 'admin']);
    expect(auth.roles).toEqual(['viewer', 'member', 'admin']);
  });
});
