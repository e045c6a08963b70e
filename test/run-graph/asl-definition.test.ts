/**
 * The run graph's definition (asl/run-graph.asl.json): valid ASL by asl-validator and by
 * the local interpreter's own checks, with exactly the transitions of the spec's
 * "Test run graph" table, and a handler for every Task resource.
 */
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { taskResources } from '@svc/core/run-graph/tasks';
import { StateMachine } from 'aws-local-stepfunctions';
import { loadDefinitionText, placeholderResources, renderDefinition, taskStates, type AslDefinition, type AslState } from '../../packages/functions/src/run-graph/definition.ts';

const require = createRequire(import.meta.url);
const aslValidator = require('asl-validator') as (definition: unknown, opts?: { checkPaths?: boolean; checkArn?: boolean }) => { isValid: boolean; errorsText: (sep?: string) => string };

const def = renderDefinition(placeholderResources());
const iteration = (def.States.execute_tests.ItemProcessor as AslDefinition).States;

/** Every target a Choice can go to: value of $.route / $.decision → next state, plus Default. */
function choices(state: AslState): Record<string, string> {
  const out: Record<string, string> = {};
  for (const c of state.Choices as Array<Record<string, unknown>>) {
    const rules = (c.Or as Array<Record<string, unknown>> | undefined) ?? [c];
    for (const r of rules) out[String(r.StringEquals)] = String(c.Next);
  }
  out.Default = String(state.Default);
  return out;
}

describe('asl/run-graph.asl.json', () => {
  it('is valid ASL (asl-validator, with path and ARN checks)', () => {
    const result = aslValidator(def, { checkPaths: true, checkArn: true });
    expect(result.errorsText('\n')).toBe('');
    expect(result.isValid).toBe(true);
  });

  it('passes the local interpreter\'s validation too', () => {
    expect(() => new StateMachine(def as never, { validationOptions: { checkPaths: true, checkArn: true } })).not.toThrow();
  });

  it('names only known resources, and every resource has a Task state', () => {
    const used = new Set(taskStates().map((t) => t.resource));
    expect([...used].sort()).toEqual([...taskResources].sort());
    expect(loadDefinitionText()).not.toMatch(/\$\{(?!analyze_code|plan_tests|execute_test|self_heal|request_approval|approval_expired|report)[^}]*\}/);
  });

  it('start → analyze_code; surfaces → plan_tests; no surfaces or error → report', () => {
    expect(def.StartAt).toBe('analyze_code');
    expect(def.States.analyze_code.Next).toBe('after_analyze_code');
    expect(choices(def.States.after_analyze_code)).toEqual({ plan_tests: 'plan_tests', Default: 'report' });
    expect(def.States.analyze_code.Catch).toEqual([{ ErrorEquals: ['States.ALL'], ResultPath: '$.error', Next: 'report' }]);
  });

  it('plan_tests: tests planned → execute_test (via the approval interrupt when required); no tests or error → report', () => {
    expect(choices(def.States.after_plan_tests)).toEqual({ execute_tests: 'execute_tests', await_plan_approval: 'await_plan_approval', Default: 'report' });
    expect(def.States.plan_tests.Catch).toEqual([{ ErrorEquals: ['States.ALL'], ResultPath: '$.error', Next: 'report' }]);
    expect(choices(def.States.after_plan_approval)).toEqual({ approved: 'execute_tests', modified: 'execute_tests', Default: 'report' });
  });

  it('execute_test fans out in a Map with MaxConcurrency from the run; then report', () => {
    const map = def.States.execute_tests;
    expect(map).toMatchObject({ Type: 'Map', ItemsPath: '$.tests', MaxConcurrencyPath: '$.max_concurrency', Next: 'report', ResultPath: null });
    expect(map.ItemSelector).toEqual({ 'thread_id.$': '$.thread_id', 'test_id.$': '$$.Map.Item.Value' });
  });

  it('each iteration owns one test, its retries and its healing loop', () => {
    expect((def.States.execute_tests.ItemProcessor as AslDefinition).StartAt).toBe('execute_test');
    expect(choices(iteration.after_execute_test)).toEqual({ retry: 'execute_test', self_heal: 'self_heal', Default: 'test_done' });
    expect(choices(iteration.after_self_heal)).toEqual({ execute_test: 'execute_test', await_heal_approval: 'await_heal_approval', Default: 'test_done' });
    expect(choices(iteration.after_heal_approval)).toEqual({ approved: 'self_heal', modified: 'self_heal', Default: 'test_done' });
    expect(iteration.test_done.Type).toBe('Succeed');
  });

  it('approval interrupts are .waitForTaskToken tasks carrying the token, expiring to the approval_expired task', () => {
    for (const [name, node, expired] of [[def.States.await_plan_approval, 'execute_test', 'plan_approval_expired'], [iteration.await_heal_approval, 'self_heal', 'heal_approval_expired']] as const) {
      expect(name.Resource).toBe('arn:aws:states:::lambda:invoke.waitForTaskToken');
      expect((name.Parameters as { Payload: Record<string, unknown> }).Payload).toMatchObject({ node, 'task_token.$': '$$.Task.Token' });
      expect((name.Catch as Array<{ ErrorEquals: string[]; Next: string }>)[0]).toMatchObject({ ErrorEquals: ['States.Timeout'], Next: expired });
    }
  });

  it('report ends the execution', () => {
    expect(def.States.report).toMatchObject({ Type: 'Task', End: true });
  });
});
