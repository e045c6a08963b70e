import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { createPlaywrightDriver } from '../../../packages/functions/src/execution/browser/playwright-driver.ts';
import { startFixtureApp, type FixtureApp } from '../../fixtures/app/server.ts';
import { ctx, step, unzip } from './helpers.ts';
import { alive } from '../../support/process-alive.ts';

/**
 * prewarm: the driver opens the next test's context while the current one runs. Each test
 * must still start in a context nothing else has touched, with the options it asked for,
 * and a trace of its own; close() must leave nothing open.
 */

let app: FixtureApp;
beforeAll(async () => {
  app = await startFixtureApp();
});
afterAll(async () => {
  await app?.close();
});

/** Runs `body` with a driver that keeps one spare context, and closes the driver after. */
async function withPrewarmedDriver(body: (driver: Awaited<ReturnType<typeof createPlaywrightDriver>>) => Promise<void>): Promise<void> {
  const driver = await createPlaywrightDriver({ prewarm: 1 });
  try {
    await body(driver);
  } finally {
    await driver.close();
  }
}

describe('spare contexts (prewarm)', () => {
  it('hands the next test a context opened ahead of time, with no cookies, storage or page of the previous test', async () => {
    await withPrewarmedDriver(async (driver) => {
      const first = await driver.openSession({ baseUrl: app.url, trace: false });
      expect(driver.spareContexts()).toBe(1);
      await first.perform(step({ type: 'goto', url: '/login' }), ctx());
      await first.context.addCookies([{ name: 'left', value: 'behind', url: app.url }]);
      await first.page.evaluate(() => localStorage.setItem('left', 'behind'));
      await first.close();

      const second = await driver.openSession({ baseUrl: app.url, trace: false });
      try {
        expect(second.context).not.toBe(first.context);
        expect(second.url()).toBe('about:blank');
        expect(second.context.pages()).toEqual([second.page]);
        expect(await second.context.cookies()).toEqual([]);
        await second.perform(step({ type: 'goto', url: '/login' }), ctx());
        expect(await second.page.evaluate(() => localStorage.getItem('left'))).toBeNull();
        expect(driver.spareContexts()).toBe(1); // refilled for the test after this one
      } finally {
        await second.close();
      }
    });
  });

  it('a spare opened for other options is not used: the test gets the viewport and base URL it asked for', async () => {
    await withPrewarmedDriver(async (driver) => {
      await (await driver.openSession({ baseUrl: app.url, trace: false })).close();
      const other = await driver.openSession({ baseUrl: `${app.url}/`, trace: false, viewport: { width: 400, height: 300 } });
      try {
        expect(other.page.viewportSize()).toEqual({ width: 400, height: 300 });
        await other.perform(step({ type: 'goto', url: 'login' }), ctx());
        expect(other.url()).toBe(`${app.url}/login`);
      } finally {
        await other.close();
      }
      expect(driver.spareContexts()).toBe(1); // the pool keeps one spare: the stale one was closed
    });
  });

  it('a test in a traced spare gets a trace of its own actions only, with DOM snapshots', async () => {
    await withPrewarmedDriver(async (driver) => {
      const first = await driver.openSession({ baseUrl: app.url, trace: true });
      await first.perform(step({ type: 'goto', url: '/table' }), ctx());
      await first.stopTrace(false);
      await first.close();
      const second = await driver.openSession({ baseUrl: app.url, trace: true });
      try {
        await second.perform(step({ type: 'goto', url: '/login' }), ctx());
        await second.perform(step({ type: 'fill', selector: '#password', value: 'x' }), ctx());
        const files = unzip(Buffer.from((await second.stopTrace(true))!));
        const events = files.get('trace.trace')!.toString('utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { type: string; method?: string; params?: { url?: string }; callId?: string; snapshot?: { callId?: string } });
        const gotos = events.filter((e) => e.type === 'before' && e.method === 'goto').map((e) => e.params?.url);
        expect(gotos).toEqual([`${app.url}/login`]);
        const fillId = events.find((e) => e.type === 'before' && e.method === 'fill')!.callId;
        expect(events.filter((e) => e.type === 'frame-snapshot' && e.snapshot?.callId === fillId).length).toBeGreaterThanOrEqual(2);
      } finally {
        await second.close();
      }
    });
  });

  it('close() closes the spare with the browser: no Chromium process is left', async () => {
    const driver = await createPlaywrightDriver({ prewarm: 1 });
    await (await driver.openSession({ baseUrl: app.url, trace: false })).close();
    const pid = driver.browserPid()!;
    expect(driver.spareContexts()).toBe(1);
    await driver.close();
    expect(driver.spareContexts()).toBe(0);
    expect(alive(pid)).toBe(false);
  });

  it('without prewarm (the default, e.g. a Lambda running one test) nothing is opened ahead', async () => {
    const driver = await createPlaywrightDriver();
    try {
      await (await driver.openSession({ baseUrl: app.url, trace: false })).close();
      expect(driver.spareContexts()).toBe(0);
    } finally {
      await driver.close();
    }
  });
});
