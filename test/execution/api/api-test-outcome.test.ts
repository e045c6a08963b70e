import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TestDefinition } from '../../../packages/core/src/contracts/steps.ts';
import { runTest } from '../../../packages/core/src/execution/run-test.ts';
import { httpExchange } from '../../../packages/core/src/execution/api/http-exchange.ts';
import { FsArtifacts } from '../../../packages/functions/src/execution/fs-artifacts.ts';
import { startFixtureApi, type FixtureApi } from './fixture-api.ts';

/**
 * What an API test's failure says, through the runner against a real HTTP server: every
 * failed trailing assertion (not only the first), and a save from a body that is not JSON
 * says what the body is. Found by QA.
 */

let api: FixtureApi;
let dir: string;

beforeAll(async () => {
  api = await startFixtureApi();
  dir = await mkdtemp(join(tmpdir(), 'svc-api-outcome-'));
});
afterAll(async () => {
  await api?.close();
  await rm(dir, { recursive: true, force: true });
});

const run = (test: unknown) => runTest('t', TestDefinition.parse(test), { http: httpExchange, artifacts: new FsArtifacts(dir), baseUrl: api.url, environment: {}, secrets: {} });

describe('a page assertion in a test that opened no page', () => {
  it('fails at once as configuration, saying a goto comes first (it waited on a blank page, then "matched 0 elements")', async () => {
    const r = await run({ name: 'users page', type: 'api', steps: [{ type: 'request', url: '/users' }], assertions: [{ type: 'status', equals: 200 }, { type: 'visible', selector: 'h1' }] });
    expect(r.status).toBe('failed');
    expect(r.failure_kind).toBe('configuration');
    expect(r.error_message).toBe('assertion 2 (expect h1 visible): a visible assertion checks a page, and no step before it opened one (a goto step comes first); this is an api test');
    expect(r.assertions_passed).toBe(1);
  });
});

describe('an API test that fails', () => {
  it('says every failed trailing assertion, one line each, the first first', async () => {
    const r = await run({
      name: 'users',
      type: 'api',
      steps: [{ type: 'request', url: '/users' }],
      assertions: [
        { type: 'status', in: [201, 204] },
        { type: 'status', equals: 200 },
        { type: 'json_schema', schema: { type: 'object', required: ['nope'] } },
        { type: 'header', header: 'x-missing', exists: true },
      ],
    });
    expect(r.status).toBe('failed');
    expect([r.assertions_passed, r.assertions_failed]).toEqual([1, 3]);
    const lines = r.error_message!.split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^assertion 1 \(.*\): expected status in \[201, ?204\], got 200/);
    expect(lines[1]).toMatch(/^assertion 3 \(.*\): /);
    expect(lines[2]).toMatch(/^assertion 4 \(.*x-missing.*\): /);
    // The first failure still sets the kind and the failed position.
    expect(r.failure_kind).toBe('assertion');
    expect(r.failed_step).toBe(1);
  });

  it('an assertion\'s name is in what its failure says; an assert step\'s assertion name labels the step (names were dropped; found by QA)', async () => {
    const r = await run({
      name: 'named',
      type: 'api',
      steps: [{ type: 'request', url: '/users' }, { type: 'assert', assertion: { type: 'status', equals: 200, name: 'users answer' } }],
      assertions: [{ type: 'json', path: '$.total', equals: 4, name: 'four users' }],
    });
    expect(r.error_message).toBe('assertion 1 (four users: expect $.total = 4): $.total: expected 4, got 3');
    expect(r.steps[1]).toMatchObject({ name: 'users answer', status: 'passed' });
  });

  it('a save that finds nothing says what came back: what the body is, or the status and body', async () => {
    const r = await run({ name: 'html', type: 'api', steps: [{ type: 'request', url: '/html', save: { id: '$.body.id' } }] });
    expect(r.status).toBe('failed');
    expect(r.error_message).toMatch(/^step 1 \(GET \/html\): save "id": expected a JSON body but the response is text\/html: /);
    // A JSON body without the path is "not found", with what came back (an error answer shows why).
    const json = await run({ name: 'json', type: 'api', steps: [{ type: 'request', url: '/users/1', save: { id: '$.body.nope' } }] });
    expect(json.error_message).toBe('step 1 (GET /users/1): save "id": $.body.nope not found (the response: 200, body {"id":1,"name":"Ada Lovelace","email":"ada@example.com","roles":["admin","dev"],"active":true,"manager":null})');
    const refused = await run({ name: 'refused', type: 'api', steps: [{ type: 'request', method: 'POST', url: '/users', json: {}, save: { id: '$.body.id' } }] });
    expect(refused.error_message).toMatch(/^step 1 \(POST \/users\): save "id": \$\.body\.id not found \(the response: 400, body \{"error":/);
  });
});

describe('a server error that no status assertion checks (an API test with no assertions passed on a 500; found by QA)', () => {
  it('fails the request step, saying the status, the body and how to expect the error', async () => {
    const r = await run({ name: 'health', type: 'api', steps: [{ type: 'request', url: '/broken' }] });
    expect(r.status).toBe('failed');
    expect(r.failure_kind).toBe('assertion');
    expect(r.failed_step).toBe(0);
    expect(r.error_message).toBe('step 1 (GET /broken): the server answered 500, a server error, and no status assertion checks this response (body: "{\\"error\\":\\"database unavailable\\"}"); if the error is expected, assert it (e.g. {"type": "status", "equals": 500})');
  });

  it('also when the test checks only the body or a header of that response', async () => {
    const r = await run({ name: 'body only', type: 'api', steps: [{ type: 'request', url: '/broken?status=503' }], assertions: [{ type: 'json', path: '$.error', exists: true }] });
    expect(r.status).toBe('failed');
    expect(r.error_message).toMatch(/^step 1 \(GET \/broken\?status=503\): the server answered 503, a server error/);
    expect(r.assertion_results?.[0].status).toBe('skipped');
  });

  it('a status check of a later request does not cover an earlier one', async () => {
    const r = await run({ name: 'two', type: 'api', steps: [{ type: 'request', url: '/broken' }, { type: 'request', url: '/users' }], assertions: [{ type: 'status', equals: 200 }] });
    expect(r.status).toBe('failed');
    expect(r.failed_step).toBe(0);
  });

  it('an expected error passes once a status assertion says so: a trailing one, or an assert step before the next request', async () => {
    const trailing = await run({ name: 'expected', type: 'api', steps: [{ type: 'request', url: '/broken' }], assertions: [{ type: 'status', equals: 500 }, { type: 'json', path: '$.error', equals: 'database unavailable' }] });
    expect(trailing.status).toBe('passed');
    const step = await run({ name: 'expected step', type: 'api', steps: [{ type: 'request', url: '/broken?status=502' }, { type: 'assert', assertion: { type: 'status', in: [502, 503] } }, { type: 'request', url: '/users' }] });
    expect(step.status).toBe('passed');
    // The status assertion decides: a 500 where 200 was expected fails there, as before.
    const wrong = await run({ name: 'wrong', type: 'api', steps: [{ type: 'request', url: '/broken' }], assertions: [{ type: 'status', equals: 200 }] });
    expect(wrong.error_message).toMatch(/^assertion 1 \(.*\): expected status 200, got 500/);
  });

  it('a 4xx is left to the test: an error path checked through its body passes', async () => {
    const r = await run({ name: 'missing name', type: 'api', steps: [{ type: 'request', method: 'POST', url: '/users', json: {} }], assertions: [{ type: 'json', path: '$.field', equals: 'name' }] });
    expect(r.status).toBe('passed');
  });
});
