import { AppError } from '../errors.ts';
import type { Store } from '../store/index.ts';

/** The most tests a triggered run (a schedule's, a webhook's) names. */
const MAX_TESTS = 1000;

/**
 * The tests a triggered run executes: every test of the project, or those with at least
 * one of the tags, as they are now (tests added later are included next time), oldest
 * first. None is an error that says why: a run of nothing would pass and prove nothing.
 */
export async function projectTestsToRun(store: Store, orgId: string, projectId: string, tags: readonly string[]): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await store.tests.list(orgId, { projectId, limit: 200, cursor });
    for (const t of page.items) if (!tags.length || t.tags.some((tag) => tags.includes(tag))) ids.push(t.id);
    cursor = page.next_cursor ?? undefined;
  } while (cursor && ids.length < MAX_TESTS);
  if (!ids.length) throw new AppError('VALIDATION_FAILED', tags.length ? `no test of the project has one of the tags ${tags.join(', ')}` : 'the project has no tests');
  return ids.slice(0, MAX_TESTS).reverse(); // oldest first, as they were written
}
