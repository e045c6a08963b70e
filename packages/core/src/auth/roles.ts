/** Organisation roles, ordered from least to most privileged. */
import type { ApiKeyScope } from './api-keys.ts';

export const roles = ['viewer', 'member', 'admin'] as const;
export type Role = (typeof roles)[number];

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (roles as readonly string[]).includes(value);
}

function rank(role: Role): number {
  // -1 for values that are not roles (e.g. a corrupt record cast to Role); callers treat
  // that as "grants nothing" rather than letting it compare as the lowest real role.
  return roles.indexOf(role);
}

/** True when `actual` grants at least the privileges of `required`. */
export function roleAtLeast(actual: Role, required: Role): boolean {
  const a = rank(actual);
  const r = rank(required);
  if (a < 0 || r < 0) return false;
  return a >= r;
}

const roleForScope: Record<ApiKeyScope, Role> = {
  read: 'viewer',
  write: 'member',
  admin: 'admin',
};

/** The role an API key acts with: the highest role implied by any of its scopes (viewer if none). */
export function roleForScopes(scopes: ApiKeyScope[]): Role {
  let best: Role = 'viewer';
  for (const scope of scopes) {
    const role = roleForScope[scope];
    if (role && rank(role) > rank(best)) best = role;
  }
  return best;
}

const readOnlyMethods = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Safe (read-only) HTTP methods need viewer; anything that may change state needs member. */
export function requiredRoleForMethod(method: string): Role {
  return readOnlyMethods.has(method.toUpperCase()) ? 'viewer' : 'member';
}
