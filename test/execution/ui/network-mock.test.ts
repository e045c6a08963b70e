import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TestDefinition } from '../../../packages/core/src/contracts/steps.ts';
import { runTest } from '../../../packages/core/src/execution/run-test.ts';
import { httpExchange } from '../../../packages/core/src/execution/api/http-exchange.ts';
import { createPlaywrightDriver, type PlaywrightDriver } from '../../../packages/functions/src/execution/browser/playwright-driver.ts';
import { FsArtifacts } from '../../../packages/functions/src/execution/fs-artifacts.ts';
import { startFixtureApp, type FixtureApp } from '../../fixtures/app/server.ts';

/**
 * Mock steps in real Chromium on the fixture app's /catalog page, which loads GET
 * /api/items in the browser: canned answers, error statuses, network errors, a method
 * filter, a count, and a slow answer — and that `request` steps still reach the server.
 */
let app: FixtureApp;
let driver: PlaywrightDriver;
let dir: string;

beforeAll(async () => {
  app = await startFixtureApp();
  driver = await createPlaywrightDriver({ locateTimeoutMs: 2_000, assertTimeoutMs: 3_000 });
  dir = await mkdtemp(join(tmpdir(), 'svc-mock-'));
});
afterAll(async () => {
  await driver?.close();
  await app?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const run = (steps: unknown[], assertions: unknown[] = [], parameters: Record<string, string> = {}) =>
  runTest('mock', TestDefinition.parse({ name: 'mock', type: 'ui', timeout_ms: 30_000, parameters, steps, assertions }), { ui: async () => driver, http: httpExchange, artifacts: new FsArtifacts(dir), baseUrl: app.url, environment: {}, secrets: {}, traceOnFailure: false });

const status = (text: string) => ({ type: 'text', selector: '#status', equals: text });

describe('mock steps', () => {
  it('without a mock the page shows the server\'s five items', async () => {
    const r = await run([{ type: 'goto', url: '/catalog' }], [status('5 items'), { type: 'count', selector: 'li.item', equals: 5 }]);
    expect(r.status, r.error_message).toBe('passed');
  });

  it('a JSON answer replaces the server\'s, by a path resolved against the base URL; variables fill it', async () => {
    const r = await run(
      [{ type: 'mock', url: '/api/items', json: { items: [{ id: 1, name: '{{name}}' }], total: 1 } }, { type: 'goto', url: '/catalog' }],
      [status('1 items'), { type: 'text', selector: 'li.item', equals: 'Mocked lamp' }],
      { name: 'Mocked lamp' },
    );
    expect(r.status, r.error_message).toBe('passed');
    expect(r.steps[0]).toMatchObject({ status: 'passed', description: 'mock any /api/items → 200' });
  });

  it('an error status and a network error show the page\'s error states', async () => {
    const five = await run([{ type: 'mock', url: '**/api/items', status: 503, body: 'down' }, { type: 'goto', url: '/catalog' }], [status('Could not load items (HTTP 503)')]);
    expect(five.status, five.error_message).toBe('passed');
    const offline = await run([{ type: 'mock', url: '**/api/items', abort: 'failed' }, { type: 'goto', url: '/catalog' }], [status('Network error')]);
    expect(offline.status, offline.error_message).toBe('passed');
  });

  it('a method filter answers only that method; others reach the server', async () => {
    const r = await run(
      [{ type: 'mock', url: '**/api/items', method: 'POST', status: 201, json: { id: 77 } }, { type: 'goto', url: '/catalog' }, { type: 'click', selector: '#add' }],
      [status('5 items'), { type: 'text', selector: '#added', equals: 'Added #77' }],
    );
    expect(r.status, r.error_message).toBe('passed');
  });

  it('times answers only the first requests; a slow answer keeps the page loading meanwhile', async () => {
    const once = await run(
      [{ type: 'mock', url: '**/api/items', times: 1, status: 500 }, { type: 'goto', url: '/catalog' }, { type: 'assert', assertion: status('Could not load items (HTTP 500)') }, { type: 'goto', url: '/catalog' }],
      [status('5 items')],
    );
    expect(once.status, once.error_message).toBe('passed');
    const slow = await run(
      [{ type: 'mock', url: '**/api/items', delay_ms: 3_000, json: { items: [], total: 0 } }, { type: 'goto', url: '/catalog' }, { type: 'assert', assertion: status('Loading…') }],
      [{ type: 'text', selector: '#status', equals: '0 items', timeout_ms: 6_000 }],
    );
    expect(slow.status, slow.error_message).toBe('passed');
  });

  it('request steps are not the browser\'s: they still reach the server', async () => {
    const r = await run([{ type: 'mock', url: '**/api/items', status: 500 }, { type: 'request', method: 'GET', url: '/api/items' }], [{ type: 'status', equals: 200 }, { type: 'json', path: '$.total', equals: 5 }]);
    expect(r.status, r.error_message).toBe('passed');
  });

  it('bad mocks are refused naming the field', () => {
    const parse = (step: unknown) => TestDefinition.safeParse({ name: 't', type: 'ui', steps: [step] }).error?.issues.map((i) => i.path.join('.'));
    expect(parse({ type: 'mock', url: '/x', json: {}, body: 'x' })).toEqual(['steps.0.body']);
    expect(parse({ type: 'mock', url: '/x', abort: 'failed', status: 500 })).toEqual(['steps.0.abort']);
    expect(parse({ type: 'mock', url: '/x', status: 42 })).toEqual(['steps.0.status']);
    expect(parse({ type: 'mock', url: '/x', abort: 'dns' })).toEqual(['steps.0.abort']);
  });
});
