import { describe, it, expect } from 'vitest';
import { createPlaywrightDriver } from '../../../packages/functions/src/execution/browser/playwright-driver.ts';
import { startFixtureApp } from '../../fixtures/app/server.ts';
import { StepFailure } from '@svc/core/execution/types';

/** warmUp() launches Chromium ahead of the first session (to overlap it with a caller's set-up). */
describe('warmUp', () => {
  it('launches the browser once; the first session then uses that same browser', async () => {
    const app = await startFixtureApp();
    const driver = await createPlaywrightDriver();
    try {
      expect(driver.browserPid()).toBeUndefined();
      await driver.warmUp();
      const pid = driver.browserPid();
      expect(pid).toBeGreaterThan(0);
      await driver.warmUp(); // idempotent
      const s = await driver.openSession({ baseUrl: app.url, trace: false });
      await s.page.goto(`${app.url}/login`);
      expect(await s.page.title()).not.toBe('');
      await s.close();
      expect(driver.browserPid()).toBe(pid);
    } finally {
      await driver.close();
      await app.close();
    }
  });

  it('never rejects: a Chromium that cannot start is reported by openSession, naming the cause', async () => {
    const driver = await createPlaywrightDriver({ executablePath: '/nonexistent/chromium' });
    try {
      await expect(driver.warmUp()).resolves.toBeUndefined();
      const err = await driver.openSession({ trace: false }).then(() => undefined, (e: unknown) => e);
      expect(err).toBeInstanceOf(StepFailure);
      expect(err).toMatchObject({ kind: 'configuration' });
      expect((err as Error).message).toContain('could not launch Chromium');
    } finally {
      await driver.close();
    }
  });
});
