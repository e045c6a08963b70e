import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { createPlaywrightDriver, type PlaywrightDriver } from '../../../packages/functions/src/execution/browser/playwright-driver.ts';
import { startFixtureApp, type FixtureApp } from '../../fixtures/app/server.ts';
import { ctx, step, unzip } from './helpers.ts';

/**
 * What a failed test's trace holds: the test's own actions with their DOM snapshots, and
 * none of svc's probes (the strict-locate count and the fingerprint run as Playwright-
 * internal calls, untraced.ts) — while the fingerprint is still recorded for healing.
 */

let app: FixtureApp;
let driver: PlaywrightDriver;

beforeAll(async () => {
  app = await startFixtureApp();
  driver = await createPlaywrightDriver();
});
afterAll(async () => {
  await driver?.close();
  await app?.close();
});

describe('a kept trace', () => {
  it('records goto and fill with DOM snapshots, not the locate/fingerprint probes; the fingerprint is still taken', async () => {
    const s = await driver.openSession({ baseUrl: app.url, trace: true });
    let fingerprint;
    try {
      await s.perform(step({ type: 'goto', url: '/login' }), ctx());
      ({ fingerprint } = await s.perform(step({ type: 'fill', selector: { label: 'Email' }, value: 'a@b.c' }), ctx()));
      const zip = await s.stopTrace(true);
      const files = unzip(Buffer.from(zip!));
      const events = files.get('trace.trace')!.toString('utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { type: string; method?: string; callId?: string; snapshot?: { callId?: string } });
      const methods = events.filter((e) => e.type === 'before').map((e) => e.method);
      expect(methods).toContain('goto');
      expect(methods).toContain('fill');
      expect(methods).not.toContain('evalOnSelectorAll');
      expect(methods).not.toContain('evalOnSelector');
      // The fill action keeps its before/after DOM snapshots: the trace viewer can show the page.
      const fillId = events.find((e) => e.type === 'before' && e.method === 'fill')!.callId;
      expect(events.filter((e) => e.type === 'frame-snapshot' && e.snapshot?.callId === fillId).length).toBeGreaterThanOrEqual(2);
      expect(files.has('trace.network')).toBe(true);
    } finally {
      await s.close();
    }
    expect(fingerprint).toMatchObject({ tag: 'input', id: 'email', type: 'email' });
  });
});
