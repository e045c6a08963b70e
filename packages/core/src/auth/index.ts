export {
  hashPassword,
  verifyPassword,
  passwordNeedsRehash,
  passwordPolicyIssues,
  passwordMinLength,
  passwordMaxLength,
  scryptParams,
} from './passwords.ts';
export {
  apiKeyScopes,
  apiKeyPrefix,
  generateApiKey,
  hashApiKey,
  looksLikeApiKey,
  isApiKeyScope,
  type ApiKeyScope,
  type GeneratedApiKey,
} from './api-keys.ts';
export { roles, roleAtLeast, roleForScopes, requiredRoleForMethod, isRole, type Role } from './roles.ts';
export { generateRefreshToken, hashRefreshToken, type GeneratedRefreshToken } from './refresh-tokens.ts';
export {
  createLocalIssuer,
  generateSigningKey,
  ecJwkThumbprint,
  defaultAccessTtlSeconds,
  localIssuerAlgorithm,
  type LocalIssuer,
  type LocalIssuerOptions,
  type AccessTokenClaims,
  type IssuedAccessToken,
  type JWK,
} from './local-issuer.ts';
export {
  createJwtVerifier,
  allowedJwtAlgorithms,
  defaultClockToleranceSeconds,
  type JwtVerifier,
  type JwtVerifierOptions,
  type ExternalIssuerConfig,
  type VerifiedIdentity,
} from './jwt-verifier.ts';
export {
  generateDeviceCode,
  hashDeviceCode,
  generateUserCode,
  normalizeUserCode,
  userCodeAlphabet,
  DEVICE_CODE_GRANT,
  type GeneratedDeviceCode,
} from './device-codes.ts';
