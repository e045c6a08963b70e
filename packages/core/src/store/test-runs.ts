import type { z } from 'zod';
import type { TestRunSchema, TestRunStatus } from '../contracts/test-run.ts';
import type { TestResultRecordSchema } from '../contracts/test-result.ts';
import { ConditionFailedError } from '../ports/table.ts';
import { conflict, notFound } from '../errors.ts';
import { keys, stripLayout } from './keys.ts';
import { resultCaseId } from '../contracts/test-result.ts';
import { queryAll, queryPage, type StoreContext } from './context.ts';

export type TestRun = z.output<typeof TestRunSchema>;
export type TestResultRecord = z.output<typeof TestResultRecordSchema>;

/**
 * Test runs and their results. A run's thread_id is unique (claimed in the same
 * transaction). A result is keyed by test and attempt, and written with `notExists`,
 * so recording the same result twice (a retried write, a resumed run) stores it once.
 */
export function testRunsRepo(ctx: StoreContext) {
  const { table } = ctx;
  return {
    async create(orgId: string, input: { project_id: string; thread_id?: string; trigger: string; test_plan?: Array<Record<string, unknown>>; total_tests?: number; source?: TestRun['source']; app_url?: string; max_concurrency?: number }): Promise<TestRun> {
      const id = ctx.newId();
      const run: TestRun = {
        id,
        project_id: input.project_id,
        thread_id: input.thread_id ?? id,
        status: 'pending',
        trigger: input.trigger,
        test_plan: input.test_plan ?? [],
        results: {},
        total_tests: input.total_tests ?? input.test_plan?.length ?? 0,
        passed_tests: 0,
        failed_tests: 0,
        error: null,
        created_at: ctx.clock.now().toISOString(),
        started_at: null,
        completed_at: null,
        // Kept only when known: runs without a source read as before.
        ...(input.source ? { source: input.source } : {}),
        ...(input.app_url ? { app_url: input.app_url } : {}),
        ...(input.max_concurrency ? { max_concurrency: input.max_concurrency } : {}),
      };
      try {
        await table.transact([
          { type: 'put', item: { ...keys.threadClaim(run.thread_id), organization_id: orgId, run_id: id }, condition: { kind: 'notExists' } },
          { type: 'put', item: { ...keys.testRun(orgId, id), entity: 'test_run', organization_id: orgId, gsi1pk: keys.runsOfProject(run.project_id), gsi1sk: `RUN#${id}`, ...run } },
        ]);
      } catch (err) {
        if (err instanceof ConditionFailedError) throw conflict(`thread_id ${run.thread_id} is already in use`, { field: 'thread_id' });
        throw err;
      }
      return run;
    },

    /** The run that claimed a thread id (a start refused with CONFLICT names its thread; this finds the run that won). */
    async runOfThread(threadId: string): Promise<string | undefined> {
      const claim = await table.get(keys.threadClaim(threadId));
      return typeof claim?.run_id === 'string' ? claim.run_id : undefined;
    },

    async get(orgId: string, runId: string): Promise<TestRun | undefined> {
      const item = await table.get(keys.testRun(orgId, runId));
      if (!item) return undefined;
      const { organization_id: _o, ...run } = stripLayout<TestRun & { organization_id: string }>(item);
      return run;
    },

    /** Newest first; `upTo`: from that run back (run ids are uuidv7: id order is creation order). */
    async listForProject(projectId: string, limit: number, cursor?: string, upTo?: string) {
      const page = await queryPage<TestRun & { organization_id?: string }>(table, { index: 'gsi1', pk: keys.runsOfProject(projectId), limit, cursor, descending: true, ...(upTo && { skTo: `RUN#${upTo}` }) });
      return { ...page, items: page.items.map(({ organization_id: _o, ...r }) => r) };
    },

    /** Moves a run to a new status; `from` makes the move conditional (no lost updates). */
    async setStatus(orgId: string, runId: string, status: TestRunStatus, patch: Partial<Pick<TestRun, 'started_at' | 'completed_at' | 'error' | 'results' | 'passed_tests' | 'failed_tests' | 'total_tests'>> = {}, from?: TestRunStatus): Promise<TestRun> {
      try {
        const item = await table.update({
          key: keys.testRun(orgId, runId),
          set: { status, ...patch },
          condition: from ? { kind: 'equals', attr: 'status', value: from } : { kind: 'exists' },
        });
        const { organization_id: _o, ...run } = stripLayout<TestRun & { organization_id: string }>(item);
        return run;
      } catch (err) {
        if (err instanceof ConditionFailedError) {
          if (!(await this.get(orgId, runId))) throw notFound('test run');
          throw conflict(`test run is not ${from}`);
        }
        throw err;
      }
    },

    /** Records one result; returns false when this (test or case, attempt) was already recorded. */
    async recordResult(orgId: string, result: Omit<TestResultRecord, 'id' | 'created_at'> & { attempt?: number }): Promise<boolean> {
      const attempt = result.attempt ?? 1;
      const { attempt: _a, ...fields } = result;
      const record: TestResultRecord = { ...fields, id: ctx.newId(), created_at: ctx.clock.now().toISOString() };
      try {
        await table.put(
          {
            pk: keys.resultsOfRun(orgId, result.test_run_id),
            sk: `RESULT#${resultCaseId(result)}#${String(attempt).padStart(3, '0')}`,
            entity: 'test_result',
            gsi1pk: keys.resultsOfTest(result.test_id),
            gsi1sk: `${record.created_at}#${record.id}`,
            attempt,
            ...record,
          },
          { kind: 'notExists' },
        );
        return true;
      } catch (err) {
        if (err instanceof ConditionFailedError) return false;
        throw err;
      }
    },

    async results(orgId: string, runId: string): Promise<Array<TestResultRecord & { attempt: number }>> {
      const items = await queryAll(table, { pk: keys.resultsOfRun(orgId, runId), skPrefix: 'RESULT#' });
      return items.map((i) => stripLayout<TestResultRecord & { attempt: number }>(i));
    },
  };
}
