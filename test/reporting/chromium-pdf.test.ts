import { afterAll, describe, expect, it } from 'vitest';
import { AppError } from '@svc/core/errors';
import { createPlaywrightDriver, type PlaywrightDriver } from '../../packages/functions/src/execution/browser/playwright-driver.ts';
import { chromiumPdfPrinter } from '../../packages/functions/src/reporting/chromium-pdf.ts';
import { parsePdf } from '../support/pdf-text.ts';

/** The Chromium printer on its own, in real Chromium: what it prints, its queue and its time cap. */
const drivers: PlaywrightDriver[] = [];
const driver = async () => {
  const d = await createPlaywrightDriver();
  drivers.push(d);
  return d;
};
afterAll(async () => {
  for (const d of drivers) await d.close();
});

const page = (text: string) => `<!doctype html><html><head><title>t</title></head><body><h1>${text}</h1><img src="http://127.0.0.1:9/never.png"><details><summary>more</summary><p>hidden ${text}</p></details></body></html>`;

describe('chromiumPdfPrinter', () => {
  it('prints queued documents one after another, each with its title in the header and page numbers', async () => {
    const shared = await driver();
    const print = chromiumPdfPrinter(async () => shared);
    const [a, b] = await Promise.all([print(page('first document'), 'header A'), print(page('second document'), 'header B')]);
    const [pa, pb] = [await parsePdf(a), await parsePdf(b)];
    expect(pa.text).toContain('first document');
    expect(pa.text).toContain('header A');
    expect(pa.text).toContain('page 1 of 1');
    expect(pb.text).toContain('second document');
    expect(pb.text).toContain('header B');
    // The printer prints what it is given: a closed <details> stays closed (the report's print form opens them).
    expect(pa.text).not.toContain('hidden first document');
  });

  it('a document past the time cap fails with UNAVAILABLE naming the cap; the browser it used still prints', async () => {
    const shared = await driver();
    // 1 ms: no launch and print is that fast, so the cap is what ends this one.
    const slow = chromiumPdfPrinter(async () => shared, { timeoutMs: 1 });
    const err = await slow(page('too slow'), 'x').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect(err).toMatchObject({ code: 'UNAVAILABLE', message: expect.stringContaining('not ready within 1 ms') });
    const print = chromiumPdfPrinter(async () => shared);
    expect((await parsePdf(await print(page('on time'), 'x'))).text).toContain('on time');
  });
});
