import { createHmac } from 'node:crypto';
import { sameText as sameSecret } from '../auth/signed-request.ts';
import type { VcsProvider } from '../contracts/vcs-integration.ts';

/** GitHub's X-Hub-Signature-256 value for a body: `sha256=` and the HMAC-SHA256 hex digest. */
export const githubSignature = (secret: string, body: Uint8Array) => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

/**
 * Whether a delivery was made with this secret: GitHub signs the raw body (the bytes as
 * received, never re-serialised JSON); GitLab sends the secret itself in X-Gitlab-Token.
 */
export function verifySignature(provider: VcsProvider, secret: string, body: Uint8Array, presented: string): boolean {
  if (provider === 'github') return sameSecret(githubSignature(secret, body), presented.trim().toLowerCase());
  return sameSecret(secret, presented);
}
