import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { ApiAssertion, ApiRequestStep } from '../../../packages/core/src/contracts/steps.ts';
import { StepFailure, type HttpResult } from '../../../packages/core/src/execution/types.ts';
import { httpExchange } from '../../../packages/core/src/execution/api/http-exchange.ts';
import { parseJsonExact } from '../../../packages/core/src/execution/api/exact-json.ts';
import { checkApiAssertion, loadJsonSchemaSupport } from '../../../packages/core/src/execution/api/check-api-assertion.ts';
import { saveVariables, saveFromResponse, apiSaveSource } from '../../../packages/core/src/execution/save-variables.ts';
import { startFixtureApi, type FixtureApi } from './fixture-api.ts';

/** Real responses from the fixture API, checked with every API assertion type. */

let api: FixtureApi;
const res: Record<string, HttpResult> = {};

const ctx = (ms = 5_000) => ({ signal: new AbortController().signal, deadline: Date.now() + ms, log: () => {}, baseUrl: api.url });
const send = (input: Record<string, unknown>) => httpExchange(ApiRequestStep.parse({ type: 'request', ...input }), ctx());

beforeAll(async () => {
  await loadJsonSchemaSupport(); // run-test.ts does this before a json_schema assertion
  api = await startFixtureApi();
  res.list = await send({ url: '/users' });
  res.created = await send({ method: 'POST', url: '/users', json: { name: 'Margaret Hamilton', email: 'mh@example.com' } });
  res.invalid = await send({ method: 'POST', url: '/users', json: { email: 'nobody@example.com' } });
  res.html = await send({ url: '/html' });
  res.badJson = await send({ url: '/invalid-json' });
  res.empty = await send({ url: '/no-content' });
  res.slow = await send({ url: '/slow?ms=250' });
});
afterAll(async () => {
  await api?.close();
});

/** Parses the assertion with the real contract, then checks it. */
const check = (assertion: Record<string, unknown>, response: HttpResult | undefined) => checkApiAssertion(ApiAssertion.parse(assertion), response);

function failure(assertion: Record<string, unknown>, response: HttpResult | undefined): StepFailure {
  try {
    check(assertion, response);
  } catch (err) {
    expect(err).toBeInstanceOf(StepFailure);
    return err as StepFailure;
  }
  throw new Error(`expected ${JSON.stringify(assertion)} to fail`);
}

describe('no response yet', () => {
  it('is a configuration failure', () => {
    const f = failure({ type: 'status', equals: 200 }, undefined);
    expect(f.kind).toBe('configuration');
    expect(f.message).toBe('no request step before this assertion: status checks the response of a request step (a page opened by goto is checked with url, title, text and the other UI assertions)');
  });
});

describe('status', () => {
  it('equals and in pass', () => {
    check({ type: 'status', equals: 200 }, res.list);
    check({ type: 'status', equals: 201 }, res.created);
    check({ type: 'status', in: [400, 422] }, res.invalid);
  });

  it('fails with expected, actual and the start of the body', () => {
    const f = failure({ type: 'status', equals: 201 }, res.invalid);
    expect(f.kind).toBe('assertion');
    expect(f.message).toBe('expected status 201, got 400 (body: "{\\"error\\":\\"name is required\\",\\"field\\":\\"name\\"}")');
    expect(f.details).toEqual({ expected: 201, actual: 400 });
    expect(failure({ type: 'status', in: [200, 204] }, res.created).message).toMatch(/^expected status in \[200, 204\], got 201 \(body: /);
    expect(failure({ type: 'status', equals: 200 }, res.empty).message).toBe('expected status 200, got 204');
  });
});

describe('header', () => {
  it('equals, contains, matches and exists pass (names are case-insensitive)', () => {
    check({ type: 'header', header: 'X-Request-Id', equals: 'req-123' }, res.list);
    check({ type: 'header', header: 'content-type', contains: 'application/json' }, res.list);
    check({ type: 'header', header: 'ETag', matches: '^W/"\\w+"$' }, res.list);
    check({ type: 'header', header: 'location', exists: true }, res.created);
    check({ type: 'header', header: 'location', exists: false }, res.list);
  });

  it('fails precisely', () => {
    expect(failure({ type: 'header', header: 'content-type', equals: 'application/json' }, res.html).message).toBe(
      'expected header "content-type" to equal "application/json", got "text/html; charset=utf-8"',
    );
    expect(failure({ type: 'header', header: 'cache-control', contains: 'private' }, res.list).message).toBe('expected header "cache-control" to contain "private", got "no-store, max-age=0"');
    expect(failure({ type: 'header', header: 'x-request-id', matches: '^\\d+$' }, res.list).message).toBe('expected header "x-request-id" to match /^\\d+$/, got "req-123"');
    expect(failure({ type: 'header', header: 'x-request-id', exists: false }, res.list).message).toBe('expected no header "x-request-id", got "req-123"');
    const missing = failure({ type: 'header', header: 'Location', exists: true }, res.list);
    expect(missing.kind).toBe('assertion');
    expect(missing.message).toBe('expected header "Location" to be present; response headers: cache-control, connection, content-type, date, etag, keep-alive, transfer-encoding, x-request-id');
    expect(failure({ type: 'header', header: 'x-missing', equals: 'a' }, res.list).message).toMatch(/^header "x-missing" is missing; response headers: /);
  });
});

describe('json', () => {
  it('equals (deep), contains, matches and exists pass', () => {
    check({ type: 'json', path: '$.total', equals: 3 }, res.list);
    check({ type: 'json', path: '$.items[0]', equals: { manager: null, active: true, roles: ['admin', 'dev'], email: 'ada@example.com', name: 'Ada Lovelace', id: 1 } }, res.list);
    check({ type: 'json', path: '$.items[*].id', equals: [1, 2, 3] }, res.list);
    check({ type: 'json', path: '$.items.length', equals: 3 }, res.list);
    check({ type: 'json', path: '$.items[-1].roles', equals: [] }, res.list);
    check({ type: 'json', path: '$.items[0].manager', equals: null }, res.list);
    check({ type: 'json', path: '$..email', equals: ['ada@example.com', 'grace@example.com', 'linus@example.com'] }, res.list);
    check({ type: 'json', path: '$.name', contains: 'Hamilton' }, res.created);
    check({ type: 'json', path: '$.created_at', matches: '^\\d{4}-\\d{2}-\\d{2}T' }, res.created);
    check({ type: 'json', path: '$.id', matches: '^\\d+$' }, res.created);
    check({ type: 'json', path: '$.id', exists: true }, res.created);
    check({ type: 'json', path: '$.password', exists: false }, res.created);
    check({ type: 'json', path: '$.items[9]', exists: false }, res.list);
  });

  it('equals fails with expected vs actual', () => {
    const f = failure({ type: 'json', path: '$.items[1].name', equals: 'Grace Murray Hopper' }, res.list);
    expect(f.kind).toBe('assertion');
    expect(f.message).toBe('$.items[1].name: expected "Grace Murray Hopper", got "Grace Hopper"');
    expect(f.details).toEqual({ expected: 'Grace Murray Hopper', actual: 'Grace Hopper' });
    expect(failure({ type: 'json', path: '$.total', equals: '3' }, res.list).message).toBe('$.total: expected "3", got 3');
    expect(failure({ type: 'json', path: '$.items[0].roles', equals: ['admin'] }, res.list).message).toBe('$.items[0].roles: expected ["admin"], got ["admin","dev"]');
    expect(failure({ type: 'json', path: '$.items[*].active', equals: [true, true, true] }, res.list).message).toBe('$.items[*].active: expected [true,true,true], got [true,true,false]');
  });

  it('an integer beyond 2^53 is read as its exact digits, as text: equals checks the real id, and a number says how to write it (a false pass found by QA)', async () => {
    const fromServer = await send({ url: '/big-id' });
    expect(fromServer.body).toEqual({ id: '9007199254740993', name: 'order' });
    // Saved, it is the id the server sent (as a double it was another id).
    expect(saveVariables({ id: '$.body.id' }, apiSaveSource(fromServer))).toEqual({ id: '9007199254740993' });
    const text = '{"id":9007199254740993,"n":12345678901234567890}';
    const big: HttpResult = { status: 200, headers: { 'content-type': 'application/json' }, text, body: parseJsonExact(text), duration_ms: 1 };
    checkApiAssertion(ApiAssertion.parse({ type: 'json', path: '$.id', equals: '9007199254740993' }), big);
    checkApiAssertion(ApiAssertion.parse({ type: 'json', path: '$.id', matches: '993$' }), big);
    // Read as a double, 9007199254740993 was …992, and this passed.
    expect(failure({ type: 'json', path: '$.id', equals: 9007199254740992 }, big).message).toBe('$.id: expected 9007199254740992, got "9007199254740993" (an integer beyond 2^53 is read exactly, as text: write equals "9007199254740993")');
    expect(failure({ type: 'json', path: '$.n', equals: '12345678901234567891' }, big).message).toBe('$.n: expected "12345678901234567891", got "12345678901234567890"');
    // A schema reads them as the numbers they are.
    await loadJsonSchemaSupport();
    checkApiAssertion(ApiAssertion.parse({ type: 'json_schema', schema: { type: 'object', properties: { id: { type: 'integer' } }, required: ['id'] } }), big);
    // Ordinary numbers get no such note.
    expect(failure({ type: 'json', path: '$.total', equals: 4 }, res.list).message).toBe('$.total: expected 4, got 3');
  });

  it('a missing path fails, showing the body', () => {
    const f = failure({ type: 'json', path: '$.user.id', equals: 1 }, res.created);
    expect(f.kind).toBe('assertion');
    expect(f.message).toMatch(/^\$\.user\.id not found in the response body \(body: \{"id":103,"name":"Margaret Hamilton"/);
  });

  it('contains, matches and exists fail precisely', () => {
    expect(failure({ type: 'json', path: '$.error', contains: 'email' }, res.invalid).message).toBe('$.error: expected "name is required" to contain "email"');
    expect(failure({ type: 'json', path: '$.total', contains: '3' }, res.list).message).toBe('$.total: expected a string containing "3", got number 3');
    expect(failure({ type: 'json', path: '$.email', matches: '@example\\.org$' }, res.created).message).toBe('$.email: expected "mh@example.com" to match /@example\\.org$/');
    expect(failure({ type: 'json', path: '$.roles', matches: '.*' }, res.created).message).toBe('$.roles: expected a string matching /.*/, got array []');
    expect(failure({ type: 'json', path: '$.id', exists: false }, res.created).message).toBe('expected $.id not to exist, got 103');
    expect(failure({ type: 'json', path: '$.token', exists: true }, res.created).message).toMatch(/^expected \$\.token to exist, it does not \(body: \{"id":103,/);
  });

  it('an HTML body is an http failure, quoting the start of the page', () => {
    const f = failure({ type: 'json', path: '$.id', exists: true }, res.html);
    expect(f.kind).toBe('http');
    expect(f.message).toBe('expected a JSON body but the response is text/html: "<!doctype html> <html><head><title>Login</title></head> <body><h1>Please sign in…"');
  });

  it('invalid JSON under a JSON content type, and an empty body, are http failures', () => {
    const bad = failure({ type: 'json', path: '$.items', exists: true }, res.badJson);
    expect(bad.kind).toBe('http');
    expect(bad.message).toBe('expected a JSON body but the application/json response is not valid JSON: "{\\"items\\": [1, 2,"');
    const empty = failure({ type: 'json', path: '$', exists: true }, res.empty);
    expect(empty.kind).toBe('http');
    expect(empty.message).toBe('expected a JSON body but the response is empty (status 204)');
  });

  it('a malformed JSONPath is refused when the test is saved; one that is malformed once its variables are filled in is a configuration failure', () => {
    expect(ApiAssertion.safeParse({ type: 'json', path: '$.items[', exists: true }).error?.issues[0]).toMatchObject({ path: ['path'], message: 'not a valid JSONPath: unclosed [ at position 7' });
    const f = failure({ type: 'json', path: '$.items[{{n}}', exists: true }, res.list);
    expect(f.kind).toBe('configuration');
    expect(f.message).toMatch(/^invalid JSONPath "\$\.items\[\{\{n\}\}": /);
  });
});

describe('json_schema', () => {
  const listSchema = {
    type: 'object',
    required: ['total', 'items'],
    properties: {
      total: { type: 'integer', minimum: 0 },
      items: {
        type: 'array',
        items: {
          type: 'object',
          required: ['id', 'name', 'email'],
          properties: { id: { type: 'integer' }, name: { type: 'string' }, email: { type: 'string', format: 'email' }, roles: { type: 'array', items: { enum: ['admin', 'dev'] } }, manager: { type: ['integer', 'null'] } },
        },
      },
    },
  };

  it('passes for a matching body (draft 2020-12, formats checked)', () => {
    check({ type: 'json_schema', schema: listSchema }, res.list);
    check({ type: 'json_schema', schema: { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', properties: { created_at: { type: 'string', format: 'date-time' } }, required: ['created_at'] } }, res.created);
    check({ type: 'json_schema', schema: { type: 'array', prefixItems: [{ const: 1 }], items: false } }, { ...res.list, body: [1], text: '[1]' });
  });

  it('a draft-07 $schema is accepted and validated with 2020-12 semantics', () => {
    check({ type: 'json_schema', schema: { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', required: ['id'] } }, res.created);
  });

  it('fails listing the first errors with instance paths', () => {
    const schema = {
      type: 'object',
      required: ['id', 'name', 'slug'],
      additionalProperties: false,
      properties: { id: { type: 'string' }, name: { type: 'string', maxLength: 5 }, email: { type: 'string', format: 'email' }, roles: { type: 'array', minItems: 1 } },
    };
    const f = failure({ type: 'json_schema', schema }, res.created);
    expect(f.kind).toBe('assertion');
    expect(f.message).toBe(
      'response body does not match the JSON Schema: (root) must have required property \'slug\'; (root) must NOT have additional properties ("created_at"); /id must be string (and 2 more)',
    );
    const errors = (f.details as { errors: Array<{ path: string; keyword: string }> }).errors;
    expect(errors.map((e) => `${e.path} ${e.keyword}`)).toEqual([' required', ' additionalProperties', '/id type', '/name maxLength', '/roles minItems']);
    expect(failure({ type: 'json_schema', schema: { type: 'object', properties: { email: { format: 'email' } } } }, { ...res.created, body: { email: 'not-an-email' } }).message).toBe(
      'response body does not match the JSON Schema: /email must match format "email"',
    );
  });

  it('an HTML body is an http failure; an invalid schema is a configuration failure', () => {
    expect(failure({ type: 'json_schema', schema: listSchema }, res.html).kind).toBe('http');
    const f = failure({ type: 'json_schema', schema: { type: 'object', properties: { a: { type: 'no-such-type' } } } }, res.list);
    expect(f.kind).toBe('configuration');
    expect(f.message).toMatch(/^invalid JSON Schema: schema is invalid: data\/properties\/a\/type/);
  });
});

describe('response_time', () => {
  it('passes under the bound and fails over it with both numbers', () => {
    check({ type: 'response_time', max_ms: 10_000 }, res.list);
    expect(res.slow.duration_ms).toBeGreaterThanOrEqual(250);
    const f = failure({ type: 'response_time', max_ms: 50 }, res.slow);
    expect(f.kind).toBe('assertion');
    expect(f.message).toBe(`expected a response within 50 ms, it took ${res.slow.duration_ms} ms`);
  });
});

describe('saving variables from a response', () => {
  it('reads status, headers and body; an indefinite path gives a list', () => {
    const vars = saveVariables({ id: '$.body.id', status: '$.status', location: "$.headers['location']", roles: '$.body.roles' }, apiSaveSource(res.created));
    expect(vars).toEqual({ id: 103, status: 201, location: '/users/103', roles: [] });
    expect(saveVariables({ ids: '$.body.items[*].id', n: '$.body.items.length' }, apiSaveSource(res.list))).toEqual({ ids: [1, 2, 3], n: 3 });
  });

  it('a header named with capitals says header names are lower case (HTTP\'s are case-insensitive)', () => {
    for (const path of ["$.headers['Location']", '$.headers.Location']) {
      let error: unknown;
      try {
        saveFromResponse({ where: path }, res.created);
      } catch (err) {
        error = err;
      }
      expect(error).toBeInstanceOf(StepFailure);
      expect((error as StepFailure).message).toBe(`save "where": ${path} not found: header names are lower case, write $.headers['location']`);
    }
  });

  it('a path that finds nothing is an assertion failure naming the variable', () => {
    let error: unknown;
    try {
      saveVariables({ token: '$.body.token' }, apiSaveSource(res.created));
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(StepFailure);
    expect((error as StepFailure).kind).toBe('assertion');
    expect((error as StepFailure).message).toBe('save "token": $.body.token not found');
  });

  it('a malformed path is a configuration failure; a non-JSON body has nothing under $.body.x', () => {
    let error: unknown;
    try {
      saveVariables({ id: '$.body[' }, apiSaveSource(res.created));
    } catch (err) {
      error = err;
    }
    expect((error as StepFailure).kind).toBe('configuration');
    expect((error as StepFailure).message).toBe('save "id": invalid JSONPath "$.body[": unclosed [ at position 6');
    expect(() => saveVariables({ id: '$.body.id' }, apiSaveSource(res.html))).toThrow('save "id": $.body.id not found');
  });
});
