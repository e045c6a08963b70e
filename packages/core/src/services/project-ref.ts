import type { Project } from '../contracts/project.ts';
import type { Store } from '../store/index.ts';

/**
 * A project named the way people and tools name one (a slash command, an automation
 * event): by id, or by name without regard to case. Undefined when the organization has none.
 */
export async function projectByRef(store: Store, orgId: string, ref: string): Promise<Project | undefined> {
  if (/^[0-9a-f-]{36}$/i.test(ref)) {
    const project = await store.projects.get(orgId, ref.toLowerCase());
    if (project) return project;
  }
  const wanted = ref.toLowerCase();
  let cursor: string | undefined;
  do {
    const page = await store.projects.list(orgId, 200, cursor);
    const found = page.items.find((p) => p.name.toLowerCase() === wanted);
    if (found) return found;
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
  return undefined;
}
