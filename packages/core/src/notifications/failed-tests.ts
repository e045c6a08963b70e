import type { Store } from '../store/index.ts';
import { resultCaseId } from '../contracts/test-result.ts';

/** A failed test as a message names it. */
export interface FailedTest {
  test_id: string;
  name: string;
  error: string | null;
}

/**
 * The tests a run left failed, in plan order, each once — its last attempt's error (a
 * retried test that failed twice is one failure) — at most `max`. Shared by the
 * notification channels and the chat commands' outcome messages.
 */
export async function failedTestsOf(store: Store, orgId: string, runId: string, max: number): Promise<FailedTest[]> {
  const failed = (await store.testRuns.results(orgId, runId)).filter((r) => r.status === 'failed');
  const latest = new Map<string, (typeof failed)[number]>();
  for (const r of failed) if ((latest.get(resultCaseId(r))?.attempt ?? 0) < r.attempt) latest.set(resultCaseId(r), r);
  return [...latest.values()].slice(0, max).map((r) => ({ test_id: r.test_id, name: typeof r.metadata.name === 'string' ? r.metadata.name : r.test_id, error: r.error_message }));
}
