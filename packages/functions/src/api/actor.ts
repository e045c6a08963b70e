import type { Principal } from '@svc/core/services/identity';

/** How a change names who made it (test revisions, healing and visual decisions name callers the same way). */
export function actorOf(principal: Principal): string {
  return principal.kind === 'apiKey' ? `api_key:${principal.keyId}` : `user:${principal.userId}`;
}
