/**
 * infra/run-graph.ts against recording doubles of the SST / Pulumi globals: one Lambda
 * per Task resource, the state machine's definition is asl/run-graph.asl.json with each
 * resource bound to its Lambda's ARN (and still valid ASL), the role may invoke exactly
 * those Lambdas, and the approval expiry runs every minute. No AWS account, no SST binary.
 */
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { taskResources } from '@svc/core/run-graph/tasks';
import { taskStates } from '../../packages/functions/src/run-graph/definition.ts';

const require = createRequire(import.meta.url);
const aslValidator = require('asl-validator') as (definition: unknown) => { isValid: boolean; errorsText: (sep?: string) => string };

/** An output double: a string with `apply`, as Pulumi outputs are used here. */
const out = (value: string) => Object.assign(Object.create({ apply: (fn: (v: string) => unknown) => fn(value), toString: () => value }), { value });
const declared: Array<{ type: string; name: string; args: any }> = [];
const component = (type: string, attrs: string[]) =>
  class {
    constructor(name: string, args: any = {}) {
      declared.push({ type, name, args });
      for (const a of attrs) (this as any)[a] = type === 'sst.aws.Function' && a === 'arn' ? `arn:aws:lambda:us-east-1:123456789012:function:${name}` : out(`${name}.${a}`);
    }
  };

let mod: any;
beforeAll(async () => {
  vi.stubGlobal('sst', { aws: { Function: component('sst.aws.Function', ['arn', 'name']), Cron: component('sst.aws.Cron', []), Dynamo: component('sst.aws.Dynamo', ['name', 'arn']), Bucket: component('sst.aws.Bucket', ['name', 'arn']) } });
  vi.stubGlobal('aws', { iam: { Role: component('aws.iam.Role', ['id', 'arn']), RolePolicy: component('aws.iam.RolePolicy', []) }, sfn: { StateMachine: component('aws.sfn.StateMachine', ['arn']) } });
  vi.stubGlobal('$resolve', (values: unknown[]) => ({ apply: (fn: (v: unknown[]) => unknown) => fn(values.map(String)) }));
  vi.stubGlobal('$interpolate', (parts: TemplateStringsArray, ...values: unknown[]) => out(parts.reduce((acc, p, i) => acc + p + (i < values.length ? String(values[i]) : ''), '')));
  const file = fileURLToPath(new URL('../../infra/run-graph.ts', import.meta.url));
  mod = await import(/* @vite-ignore */ file);
});
afterAll(() => vi.unstubAllGlobals());

describe('infra/run-graph.ts', () => {
  it('declares one Lambda per Task resource, each on its lambda-tasks.ts export', async () => {
    const fns = declared.filter((d) => d.type === 'sst.aws.Function');
    expect(fns).toHaveLength(taskResources.length);
    const lambda = await import('../../packages/functions/src/run-graph/lambda-tasks.ts');
    for (const f of fns) {
      const [, exported] = String(f.args.handler).split('lambda-tasks.');
      expect(f.args.handler).toMatch(/^packages\/functions\/src\/run-graph\/lambda-tasks\./);
      expect(typeof (lambda as Record<string, unknown>)[exported], exported).toBe('function');
      expect(f.args.environment).toMatchObject({ SVC_TABLE_NAME: expect.anything(), SVC_BUCKET_NAME: expect.anything() });
    }
    const exec = fns.find((f) => f.name === 'RunGraphExecuteTest')!;
    expect(exec.args).toMatchObject({ timeout: '15 minutes', memory: '2048 MB' });
  });

  it('deploys the very ASL file, each resource bound to its Lambda, valid for Step Functions', () => {
    const sm = declared.find((d) => d.type === 'aws.sfn.StateMachine')!;
    const def = JSON.parse(sm.args.definition);
    expect(aslValidator(def).errorsText('\n')).toBe('');
    const text = JSON.stringify(def);
    expect(text).not.toMatch(/\$\{/);
    for (const { state, resource } of taskStates()) {
      expect(text, state).toContain(`function:RunGraph${resource.replace(/(^|_)([a-z])/g, (_, __, c: string) => c.toUpperCase())}`);
    }
    expect(def.States.await_plan_approval.Resource).toBe('arn:aws:states:::lambda:invoke.waitForTaskToken');
    expect(sm.args.type).toBe('STANDARD');
  });

  it('lets the state machine invoke exactly its Lambdas, and the API drive executions', () => {
    const policy = JSON.parse(declared.find((d) => d.type === 'aws.iam.RolePolicy')!.args.policy);
    expect(policy.Statement[0].Action).toBe('lambda:InvokeFunction');
    expect(policy.Statement[0].Resource).toHaveLength(taskResources.length * 2);
    const actions = mod.runGraphApiPermissions.flatMap((p: { actions: string[] }) => p.actions);
    expect(actions).toEqual(expect.arrayContaining(['states:StartExecution', 'states:StopExecution', 'states:DescribeExecution', 'states:SendTaskSuccess']));
    expect(mod.runGraphApiEnvironment).toHaveProperty('SVC_STATE_MACHINE_ARN');
    const cron = declared.find((d) => d.type === 'sst.aws.Cron')!;
    expect(cron.args).toMatchObject({ schedule: 'rate(1 minute)', function: { handler: 'packages/functions/src/run-graph/lambda-tasks.expireApprovals' } });
  });
});
