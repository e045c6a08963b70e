import { api } from './api.js';

/**
 * Every project of the selected organization, for the admin sections' project selects and
 * the names their rows show.
 *
 * @typedef {{ id: string, name: string }} ProjectRef
 */

/**
 * Reads every page of the organization's projects (200 at a time). Stops early once
 * `wanted` says the answer is no longer needed (the section was hidden or shows another
 * organization). A failure keeps the projects read so far: the section still loads and
 * says what it can, showing project ids where it has no names.
 * @param {() => boolean} wanted
 * @returns {Promise<ProjectRef[]>}
 */
export async function allProjects(wanted) {
  /** @type {ProjectRef[]} */
  const projects = [];
  try {
    /** @type {string | null} */
    let cursor = null;
    do {
      /** @type {{ items: ProjectRef[], next_cursor: string | null }} */
      const page = await api(`/api/v1/projects?limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      projects.push(...page.items.map((p) => ({ id: p.id, name: p.name })));
      cursor = page.next_cursor ?? null;
    } while (cursor && wanted());
  } catch {
    // What was read is what there is.
  }
  return projects;
}
