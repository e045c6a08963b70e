import { randomBytes } from 'node:crypto';

/**
 * A new webhook secret (a notification channel's signing secret, a VCS integration's
 * secret): 32 random bytes. It is stored as given, not hashed — each side must compute an
 * HMAC with it (or, for GitLab, compare it) — and shown once, at creation.
 */
export const newWebhookSecret = () => `whsec_${randomBytes(32).toString('base64url')}`;
