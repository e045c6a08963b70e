import { api } from './api.js';

/**
 * A writer's id in words (who resolved a comment; revisions and edit conflicts come with
 * `changed_by_name` from the API): `user:<id>` as the member's email when the organization's
 * member list (readable by every role) names them; API keys and system writers as they are.
 * The list is read once per call site that asks; a failure only leaves ids unnamed.
 */
export async function peopleNamer() {
  /** @type {Map<string, string>} */
  const emails = new Map();
  try {
    const page = await api('/api/teams?limit=200');
    for (const m of page.items) emails.set(`user:${m.user_id}`, m.email);
  } catch {
    // Unnamed authors still show their id.
  }
  /** @param {string} changedBy */
  return (changedBy) => emails.get(changedBy) ?? (changedBy === 'system:autonomous_loop' ? 'the autonomous loop' : changedBy);
}

/** A time as this browser writes it. @param {string} iso */
export const when = (iso) => new Date(iso).toLocaleString();
