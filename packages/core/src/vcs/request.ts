import { createHash } from 'node:crypto';
import { AppError, validationFailed } from '../errors.ts';
import type { VcsProvider } from '../contracts/vcs-integration.ts';

/** What the headers of a webhook say: which host, which event, which delivery, and its proof. */
export interface VcsRequest {
  provider: VcsProvider;
  /** X-GitHub-Event (push, pull_request, ping, …) or X-Gitlab-Event (Push Hook, Merge Request Hook, …). */
  event: string;
  /** The delivery's id, the same on a redelivery: the de-duplication key (null: an older GitLab that sends none; see deliveryIdOf). */
  delivery_id: string | null;
  /** X-Hub-Signature-256, or X-Gitlab-Token. */
  signature: string;
}

/** Short enough to name a run thread: vcs-<integration id>-<delivery id> fits the 128 characters a thread id has. */
const DELIVERY_ID = /^[A-Za-z0-9._:-]{1,80}$/;

/**
 * Reads a webhook's headers (names in lower case). Refuses what cannot be a host's
 * delivery before the body is read: no event header (400), no signature (401), a body
 * that is not JSON (415 — GitHub can also send form-encoded payloads).
 */
export function readVcsRequest(header: (name: string) => string | undefined): VcsRequest {
  const github = header('x-github-event');
  const gitlab = header('x-gitlab-event');
  if (!github && !gitlab) throw validationFailed([{ path: 'headers', message: 'not a source-control webhook: expected an X-GitHub-Event (GitHub) or X-Gitlab-Event (GitLab) header' }]);
  const provider: VcsProvider = github ? 'github' : 'gitlab';
  const signature = provider === 'github' ? header('x-hub-signature-256') : header('x-gitlab-token');
  if (!signature) {
    throw new AppError('INVALID_SIGNATURE', provider === 'github'
      ? 'X-Hub-Signature-256 is missing: give the GitHub webhook the secret svc showed when the integration was created'
      : 'X-Gitlab-Token is missing: give the GitLab webhook the secret svc showed when the integration was created as its secret token');
  }
  const type = header('content-type') ?? '';
  if (!/^application\/json\b/i.test(type)) {
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', `expected Content-Type application/json, got ${type || 'none'}${provider === 'github' ? ': set the webhook\'s content type to application/json' : ''}`);
  }
  // GitLab 17.4+ sends Idempotency-Key, the same on a retry; before that X-Gitlab-Event-UUID.
  const delivery = provider === 'github' ? header('x-github-delivery') : (header('idempotency-key') ?? header('x-gitlab-event-uuid'));
  if (!delivery && provider === 'github') throw validationFailed([{ path: 'headers.x-github-delivery', message: 'required' }]);
  if (delivery && !DELIVERY_ID.test(delivery)) throw validationFailed([{ path: provider === 'github' ? 'headers.x-github-delivery' : 'headers.idempotency-key', message: 'not a delivery id' }]);
  return { provider, event: (github ?? gitlab)!.trim(), delivery_id: delivery ?? null, signature };
}

/** A delivery's id; an older GitLab sends none, and its retry carries the same body, so the body's hash is the key. */
export const deliveryIdOf = (request: VcsRequest, body: Uint8Array) => request.delivery_id ?? `sha256-${createHash('sha256').update(body).digest('hex')}`;
