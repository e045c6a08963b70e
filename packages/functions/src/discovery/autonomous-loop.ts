import type { TestDefinition } from '@svc/core/contracts/steps';
import { AppError } from '@svc/core/errors';
import { RunStartInput } from '@svc/core/run-graph/contracts';
import type { Store, TestRecord } from '@svc/core/store/index';
import type { RunManager } from '../run-graph/run-manager.ts';
import { markSessionFailed, persistCrawl } from './persist.ts';
import type { CrawlRequest, DiscoveryRunner } from './runner.ts';
import { testsFromCrawl } from './tests-from-crawl.ts';

/** The tag every test the loop writes carries: how it finds its own tests again on the next loop. */
export const AUTONOMOUS_TAG = 'autonomous';

export interface AutonomousLoopRequest {
  projectId: string;
  /** The app URL the tests will run against (the project's): pages of its origin become paths. */
  appUrl: string | null;
  crawl: CrawlRequest;
  run: { healing_enabled: boolean; require_test_plan_approval: boolean; retries?: number };
}

export interface AutonomousLoopOutcome {
  discoverySessionId: string;
  pages: number;
  tests: Array<{ id: string; name: string; kind: string; created: boolean }>;
  skipped: Array<{ name: string; reason: string }>;
  /** The run of the tests; absent when discovery found nothing to test. */
  started?: Awaited<ReturnType<RunManager['start']>>;
}

/**
 * The autonomous loop (POST /api/quality/autonomous-loop): discover → generate → run →
 * heal → report, with no test written by hand. The crawl is the synchronous discovery
 * crawl (this process's browser, or the browser function on AWS), stored as a discovery
 * session; its pages and flows become tests with the deterministic generators (as
 * `svc run --discover`), written to the project tagged `autonomous` — a test of the same
 * name from an earlier loop is updated, not duplicated — and a run of them starts on the
 * run graph, where failures heal, results are reported and the run streams like any other.
 * A generated test counts as passing only when it passed there.
 */
export async function runAutonomousLoop(
  deps: { store: Store; discovery: DiscoveryRunner; runGraph: RunManager },
  orgId: string,
  userId: string | null,
  request: AutonomousLoopRequest,
): Promise<AutonomousLoopOutcome> {
  const { store } = deps;
  const session = await store.discovery.createSession(orgId, {
    project_id: request.projectId, name: `Autonomous loop of ${new URL(request.crawl.startUrl).host}`, start_url: request.crawl.startUrl, mode: 'dom_only', strategy: 'breadth_first', max_pages: request.crawl.maxPages ?? 10,
  });
  let result;
  try {
    await store.discovery.updateSession(orgId, session.id, { status: 'running' });
    result = await deps.discovery.crawlNow({ ...request.crawl, strategy: 'breadth_first' });
    await persistCrawl(store, orgId, session, result);
  } catch (err) {
    await markSessionFailed(store, orgId, session.id, err);
    throw err;
  }

  // A sign-in flow needs the test account's user name and password as the project's secrets.
  const secrets = new Set((await store.environment.list(orgId, request.projectId)).filter((v) => v.secret).map((v) => v.name));
  const found = testsFromCrawl(result, { hasSecret: (name) => secrets.has(name), secretHint: (name) => `the project secret ${name}`, runsAgainst: request.appUrl });
  const tests = await writeTests(store, orgId, request.projectId, found.tests);
  const outcome: AutonomousLoopOutcome = { discoverySessionId: session.id, pages: result.pages.length, tests, skipped: found.skipped };
  if (!tests.length) return outcome;
  const input = RunStartInput.parse({
    project_id: request.projectId,
    test_ids: tests.map((t) => t.id),
    healing_enabled: request.run.healing_enabled,
    require_test_plan_approval: request.run.require_test_plan_approval,
    ...(request.run.retries !== undefined ? { retries: request.run.retries } : {}),
  });
  outcome.started = await deps.runGraph.start(orgId, userId, input, 'autonomous');
  return outcome;
}

/** The loop's changes show in a test's history as its own (docs/test-revisions.md). */
const LOOP_AUTHOR = { changed_by: 'system:autonomous_loop', source: 'autonomous_loop' } as const;

/** Creates the generated tests, or updates the loop's earlier test of the same name (a new revision when it differs). */
async function writeTests(store: Store, orgId: string, projectId: string, generated: Array<{ definition: TestDefinition; kind: string }>) {
  const earlier = new Map<string, TestRecord>();
  for (const t of await allTests(store, orgId, projectId)) if (t.tags.includes(AUTONOMOUS_TAG) && !earlier.has(t.name)) earlier.set(t.name, t);
  const written: AutonomousLoopOutcome['tests'] = [];
  const seen = new Set<string>();
  for (const { definition, kind } of generated) {
    if (seen.has(definition.name)) continue; // two pages with one title and path: one test
    seen.add(definition.name);
    const fields = {
      name: definition.name,
      description: definition.description ?? null,
      type: definition.type,
      steps: definition.steps,
      assertions: definition.assertions ?? [],
      timeout_ms: definition.timeout_ms,
      tags: [AUTONOMOUS_TAG, kind],
    };
    const before = earlier.get(definition.name);
    if (before) {
      const updated = await store.tests.update(orgId, before.id, fields, LOOP_AUTHOR);
      if (!updated) throw new AppError('CONFLICT', `test ${before.id} was deleted while the loop wrote it; run the loop again`);
      written.push({ id: updated.id, name: updated.name, kind, created: false });
    } else {
      const created = await store.tests.create(orgId, { project_id: projectId, priority: 'medium', ...fields } as Parameters<Store['tests']['create']>[1], LOOP_AUTHOR);
      written.push({ id: created.id, name: created.name, kind, created: true });
    }
  }
  return written;
}

async function allTests(store: Store, orgId: string, projectId: string): Promise<TestRecord[]> {
  const out: TestRecord[] = [];
  let cursor: string | undefined;
  do {
    const page = await store.tests.list(orgId, { projectId, limit: 100, cursor });
    out.push(...page.items);
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
  return out;
}
