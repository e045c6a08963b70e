import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium } from 'playwright-core';
import { createPlaywrightDriver, type PlaywrightDriver } from '../../../packages/functions/src/execution/browser/playwright-driver.ts';
import { TargetClosedError } from '../../../packages/functions/src/execution/browser/connection-guard.ts';
import { startFixtureApp, type FixtureApp } from '../../fixtures/app/server.ts';
import { ctx, step } from './helpers.ts';

/**
 * Closing a traced test's context while a goto is completing (what cancel and the test timeout
 * do) made playwright-core throw "Object with guid response@… was not bound in the connection"
 * from its message loop: an uncaught exception in CI's cancel test, and a goto that never
 * settled. The driver guards the connection so the goto fails as "closed" instead.
 */

let app: FixtureApp;
let driver: PlaywrightDriver;
const uncaught: unknown[] = [];
const onUncaught = (e: unknown) => uncaught.push(e);

interface Connection {
  dispatch(message: object): void;
  _callbacks: Map<number, { resolve(v: unknown): void; reject(e: unknown): void; type: string; method: string; title?: string }>;
}
// Every Playwright object in this process shares one client connection.
const connection = () => (chromium as unknown as { _connection: Connection })._connection;

beforeAll(async () => {
  app = await startFixtureApp();
  driver = await createPlaywrightDriver();
  process.on('uncaughtException', onUncaught);
});
afterAll(async () => {
  process.off('uncaughtException', onUncaught);
  await driver?.close();
  await app?.close();
});

describe('a context closed while a command result is on its way', () => {
  it('fails the pending command as closed instead of throwing from Playwright\'s message loop', async () => {
    const s = await driver.openSession({ baseUrl: app.url, trace: false });
    await s.close();
    const conn = connection();
    expect(Object.hasOwn(conn, 'dispatch')).toBe(true); // the driver installed the guard

    // The exact message the race produces: goto's result naming a Response already disposed.
    const id = 2_000_000_000;
    const settled = new Promise((resolve, reject) => conn._callbacks.set(id, { resolve, reject, type: 'Frame', method: 'goto' }));
    expect(() => conn.dispatch({ id, result: { response: { guid: 'response@already-disposed' } } })).not.toThrow();
    const error = await settled.then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(TargetClosedError);
    expect((error as Error).message).toMatch(/^Target page, context or browser has been closed \(Object with guid response@already-disposed was not bound/);
    expect(conn._callbacks.has(id)).toBe(false);

    // Anything else is still Playwright's to report.
    expect(() => conn.dispatch({ id: id + 1, result: {} })).toThrow(/Cannot find command to respond/);
  });

  // Without the guard, several of these gotos hang and as many uncaught errors reach vitest.
  it('every goto settles when traced sessions are closed around the moment their page loads', async () => {
    const outcomes = { loaded: 0, failed: 0, hung: 0 };
    for (let i = 0; i < 30; i++) {
      const s = await driver.openSession({ baseUrl: app.url, trace: true });
      const goto = s.perform(step({ type: 'goto', url: '/slow?ms=40' }), ctx()).then(
        () => 'loaded' as const,
        () => 'failed' as const,
      );
      await new Promise((r) => setTimeout(r, 30 + i * 4));
      await s.close();
      const outcome = await Promise.race([goto, new Promise<'hung'>((r) => setTimeout(() => r('hung'), 5_000))]);
      outcomes[outcome]++;
    }
    expect(outcomes).toMatchObject({ hung: 0 }); // the diff shows how many loaded and failed
    expect(outcomes.loaded + outcomes.failed).toBe(30);
    expect(uncaught).toEqual([]);
  });
});
