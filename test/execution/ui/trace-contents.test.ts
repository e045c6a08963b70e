import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { inflateRawSync } from 'node:zlib';
import { createPlaywrightDriver, type PlaywrightDriver } from '../../../packages/functions/src/execution/browser/playwright-driver.ts';
import { startFixtureApp, type FixtureApp } from '../../fixtures/app/server.ts';
import { ctx, step } from './helpers.ts';

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

/** The entries of a zip archive, from its central directory (stored or deflated). */
function unzip(zip: Buffer): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  const eocd = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  let p = zip.readUInt32LE(eocd + 16);
  for (let n = zip.readUInt16LE(eocd + 10); n > 0; n--) {
    const method = zip.readUInt16LE(p + 10);
    const size = zip.readUInt32LE(p + 20);
    const nameLen = zip.readUInt16LE(p + 28);
    const extraLen = zip.readUInt16LE(p + 30);
    const commentLen = zip.readUInt16LE(p + 32);
    const local = zip.readUInt32LE(p + 42);
    const name = zip.toString('utf8', p + 46, p + 46 + nameLen);
    const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    const data = zip.subarray(start, start + size);
    out.set(name, method === 8 ? inflateRawSync(data) : Buffer.from(data));
    p += 46 + nameLen + extraLen + commentLen;
  }
  return out;
}

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
