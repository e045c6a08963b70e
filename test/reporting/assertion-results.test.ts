/**
 * A test's trailing assertions in every report, from a real run against a real HTTP
 * server: each with its name, its outcome and its message (the reports had only counts,
 * and an assertion's name appeared nowhere; found by QA).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TestDefinition } from '../../packages/core/src/contracts/steps.ts';
import { runTest } from '../../packages/core/src/execution/run-test.ts';
import { httpExchange } from '../../packages/core/src/execution/api/http-exchange.ts';
import { FsArtifacts } from '../../packages/functions/src/execution/fs-artifacts.ts';
import { JsonReport, renderJsonReport } from '../../packages/core/src/reporting/json-report.ts';
import { renderHtmlReport, renderJUnitReport, renderMarkdownReport } from '../../packages/core/src/reporting/index.ts';
import { toTestResult } from '../../packages/core/src/run-graph/results.ts';
import { executionResultOf } from '../../packages/core/src/run-graph/run-summary.ts';
import type { TestExecutionResult } from '../../packages/core/src/execution/types.ts';
import { startFixtureApi, type FixtureApi } from '../execution/api/fixture-api.ts';
import { makeSummary } from './fixtures.ts';

let api: FixtureApi;
let dir: string;
let checked: TestExecutionResult;
let notReached: TestExecutionResult;

beforeAll(async () => {
  api = await startFixtureApi();
  dir = await mkdtemp(join(tmpdir(), 'svc-assertion-results-'));
  const run = (test: unknown) => runTest((test as { name: string }).name, TestDefinition.parse(test), { http: httpExchange, artifacts: new FsArtifacts(dir), baseUrl: api.url, environment: {}, secrets: {} });
  checked = await run({
    name: 'users',
    type: 'api',
    steps: [{ type: 'request', url: '/users' }],
    assertions: [
      { type: 'status', equals: 200, name: 'answers' },
      { type: 'json', path: '$.total', equals: 4, name: 'four <users>' },
      { type: 'json', path: '$.items[0].name', equals: 'Ada Lovelace' },
    ],
  });
  notReached = await run({ name: 'missing', type: 'api', steps: [{ type: 'request', url: '/users' }, { type: 'assert', assertion: { type: 'status', equals: 404 } }], assertions: [{ type: 'status', equals: 200, name: 'never checked' }] });
});
afterAll(async () => {
  await api?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('assertion results', () => {
  it('the runner records each trailing assertion: passed, failed with its message, or skipped when a step failed first', () => {
    expect(checked.assertion_results?.map((a) => [a.index, a.name, a.description, a.status, a.error?.message])).toEqual([
      [0, 'answers', 'expect status 200', 'passed', undefined],
      [1, 'four <users>', 'expect $.total = 4', 'failed', '$.total: expected 4, got 3'],
      [2, undefined, 'expect $.items[0].name = "Ada Lovelace"', 'passed', undefined],
    ]);
    expect(notReached.assertion_results).toEqual([{ index: 0, name: 'never checked', description: 'expect status 200', status: 'skipped', duration_ms: 0 }]);
  });

  it('survive the run graph\'s stored result (what a server run\'s reports read)', () => {
    const back = executionResultOf({ ...toTestResult(checked, 1, false), attempt: 1 } as never);
    expect(back.assertion_results).toEqual(checked.assertion_results);
  });

  it('appear in the JSON, Markdown, HTML and JUnit reports with their names', () => {
    const summary = makeSummary([checked, notReached]);
    const json = JsonReport.parse(JSON.parse(renderJsonReport(summary)));
    expect(json.tests[0].assertions).toMatchObject({ passed: 2, failed: 1, results: [{ index: 0, name: 'answers', status: 'passed', error: null }, { index: 1, name: 'four <users>', status: 'failed', error: { kind: 'assertion', message: '$.total: expected 4, got 3' } }, { index: 2, name: null, status: 'passed' }] });
    expect(json.tests[1].assertions.results).toMatchObject([{ name: 'never checked', status: 'skipped' }]);
    const md = renderMarkdownReport(summary);
    expect(md).toContain('- **Failing assertion:** 2. `expect $.total = 4` (four &lt;users&gt;)');
    const html = renderHtmlReport(summary);
    expect(html).toContain('<h3>Assertions</h3>');
    expect(html).toContain('<span class="step-name">four &lt;users&gt;</span>');
    expect(html).not.toContain('four <users>');
    const junit = renderJUnitReport(summary);
    expect(junit).toContain('Assertions:\n✓ 1. expect status 200 [answers]');
    expect(junit).toContain('✗ 2. expect $.total = 4 [four &lt;users&gt;]');
  });
});
