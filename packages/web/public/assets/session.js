import { getOrganizationId } from './api.js';

/**
 * Who is signed in, as app.js read it (GET /api/v1/users/me), for the modules that need to
 * know whose a thing is (review comments: one's own are edited and deleted) or the role in
 * the organization shown (an admin deletes anyone's comment).
 *
 * @typedef {{ user_id: string, memberships: Array<{ organization_id: string, role: string }> }} Person `user_id`: the id the API names people by (not the profile's `id`)
 */

/** @type {Person | undefined} */
let person;

/** @param {Person} me */
export function setSignedIn(me) {
  person = me;
}

/**
 * The signed-in person as the API names authors (`user:<id>`), and their role in the
 * organization selected; undefined before app.js read who it is.
 * @returns {{ actor: string, role: string } | undefined}
 */
export function signedIn() {
  if (!person) return undefined;
  const orgId = getOrganizationId();
  const role = person.memberships.find((m) => m.organization_id === orgId)?.role ?? '';
  return { actor: `user:${person.user_id}`, role };
}
