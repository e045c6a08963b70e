import { AppError } from '../errors.ts';
import type { Store } from '../store/index.ts';

/** The most tests a triggered run (a schedule's, a webhook's) names. */
const MAX_TESTS = 1000;

/**
 * The tests a triggered run executes: every test of the project, or those with at least
 * one of the tags (and a name `grep` matches, when given), as they are now (tests added
 * later are included next time), oldest first. None is an error that says why: a run of
 * nothing would pass and prove nothing.
 */
export async function projectTestsToRun(store: Store, orgId: string, projectId: string, tags: readonly string[], grep?: RegExp): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await store.tests.list(orgId, { projectId, limit: 200, cursor });
    for (const t of page.items) if ((!tags.length || t.tags.some((tag) => tags.includes(tag))) && (!grep || grep.test(t.name))) ids.push(t.id);
    cursor = page.next_cursor ?? undefined;
  } while (cursor && ids.length < MAX_TESTS);
  if (!ids.length) {
    const which = [tags.length ? `one of the tags ${tags.join(', ')}` : '', grep ? `a name matching /${grep.source}/i` : ''].filter(Boolean).join(' and ');
    throw new AppError('VALIDATION_FAILED', which ? `no test of the project has ${which}` : 'the project has no tests');
  }
  return ids.slice(0, MAX_TESTS).reverse(); // oldest first, as they were written
}
