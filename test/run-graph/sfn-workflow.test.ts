/**
 * The Step Functions adapter on the wire: what it asks Step Functions for (AWS JSON 1.0
 * protocol, X-Amz-Target AWSStepFunctions.*) and how it reads the answers, against a
 * small double speaking that protocol. No AWS account.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SFNClient } from '@aws-sdk/client-sfn';
import { createSfnWorkflow, executionName } from '../../packages/functions/src/run-graph/sfn-workflow.ts';

interface Call {
  target: string;
  body: Record<string, unknown>;
  signed: boolean;
}
const calls: Call[] = [];
const running = new Set<string>();
let server: Server;
let endpoint: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    let raw = '';
    req.on('data', (d) => (raw += d));
    req.on('end', () => {
      const target = String(req.headers['x-amz-target'] ?? '').replace('AWSStepFunctions.', '');
      const body = JSON.parse(raw || '{}');
      calls.push({ target, body, signed: /^AWS4-HMAC-SHA256 /.test(String(req.headers.authorization)) });
      const reply = (status: number, payload: unknown) => {
        res.writeHead(status, { 'content-type': 'application/x-amz-json-1.0' });
        res.end(JSON.stringify(payload));
      };
      if (req.headers['content-type'] !== 'application/x-amz-json-1.0') return reply(400, { __type: 'SerializationException' });
      switch (target) {
        case 'StartExecution': {
          const arn = `${String(body.stateMachineArn).replace(':stateMachine:', ':execution:')}:${body.name}`;
          running.add(arn);
          return reply(200, { executionArn: arn, startDate: Date.now() / 1000 });
        }
        case 'DescribeExecution':
          return reply(200, { executionArn: body.executionArn, stateMachineArn: 'x', status: running.has(String(body.executionArn)) ? 'RUNNING' : 'ABORTED', startDate: Date.now() / 1000 });
        case 'StopExecution':
          running.delete(String(body.executionArn));
          return reply(200, { stopDate: Date.now() / 1000 });
        case 'SendTaskSuccess':
          if (body.taskToken === 'gone') return reply(400, { __type: 'com.amazonaws.swf.service.v2.model#TaskDoesNotExist', message: 'Task does not exist anymore' });
          return reply(200, {});
        default:
          return reply(400, { __type: 'UnknownOperationException' });
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((r) => server.close(r)));

const machine = 'arn:aws:states:us-east-1:000000000000:stateMachine:svc-run-graph';

describe('Step Functions workflow', () => {
  it('start, isRunning, stop and sendTaskSuccess speak the Step Functions API', async () => {
    const saved = new Map<string, string>();
    const wf = createSfnWorkflow({
      client: new SFNClient({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'x', secretAccessKey: 'y' } }),
      stateMachineArn: machine,
      executions: { save: async (t, a) => void saved.set(t, a), get: async (t) => saved.get(t) },
    });
    await wf.start('thread-1');
    const start = calls.find((c) => c.target === 'StartExecution')!;
    expect(start.signed).toBe(true);
    expect(start.body).toMatchObject({ stateMachineArn: machine, input: JSON.stringify({ thread_id: 'thread-1' }) });
    expect(String(start.body.name)).toMatch(/^thread-1-[a-z0-9]+$/);
    expect(saved.get('thread-1')).toBe(`arn:aws:states:us-east-1:000000000000:execution:svc-run-graph:${start.body.name}`);
    expect(await wf.isRunning('thread-1')).toBe(true);
    expect(await wf.isRunning('other')).toBe(false);

    await wf.sendTaskSuccess('token-1', { thread_id: 'thread-1', decision: 'approved' });
    expect(calls.find((c) => c.target === 'SendTaskSuccess')!.body).toEqual({ taskToken: 'token-1', output: JSON.stringify({ thread_id: 'thread-1', decision: 'approved' }) });
    await expect(wf.sendTaskSuccess('gone', { thread_id: 't', decision: 'approved' })).resolves.toBeUndefined(); // the task is gone: the checkpoint has the decision

    await wf.stop('thread-1', 'the run was cancelled');
    expect(calls.find((c) => c.target === 'StopExecution')!.body).toMatchObject({ executionArn: saved.get('thread-1'), error: 'svc.Cancelled', cause: 'the run was cancelled' });
    expect(await wf.isRunning('thread-1')).toBe(false);
  });

  it('execution names are valid (≤ 80 chars of [A-Za-z0-9-_]) and unique per start', () => {
    const long = `x:${'a'.repeat(120)}`;
    for (const t of ['01a1fe4b-31c6-70bb-896a-97d1275d7ec6', long, 'a.b:c']) {
      const n = executionName(t);
      expect(n.length).toBeLessThanOrEqual(80);
      expect(n).toMatch(/^[A-Za-z0-9_-]+$/);
    }
    expect(executionName('t', 1)).not.toBe(executionName('t', 2));
  });
});
