import chromium from '@sparticuz/chromium';
import { parse, type DefaultTreeAdapterMap } from 'parse5';
import * as pw from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderHtmlReport } from '@svc/core/reporting/html-report';
import { CONTROL_NAME, PNG, SCRIPT_NAME, UNICODE_NAME, artifacts, makeSummary } from './fixtures.ts';

type Node = DefaultTreeAdapterMap['node'];
type Element = DefaultTreeAdapterMap['element'];

/** Every element of a parse5 tree, template contents included. */
function elements(node: Node): Element[] {
  const out: Element[] = [];
  const visit = (n: Node) => {
    if ('tagName' in n) out.push(n);
    if ('childNodes' in n) for (const c of n.childNodes) visit(c);
    if ('content' in n && n.content) visit(n.content as Node);
  };
  visit(node);
  return out;
}

function textOf(node: Node): string {
  if (node.nodeName === '#text') return (node as DefaultTreeAdapterMap['textNode']).value;
  return 'childNodes' in node ? node.childNodes.map(textOf).join('') : '';
}

const attr = (el: Element, name: string) => el.attrs.find((a) => a.name === name)?.value;
const byClass = (els: Element[], cls: string) => els.filter((e) => (attr(e, 'class') ?? '').split(/\s+/).includes(cls));

describe('HTML report', () => {
  const summary = makeSummary();
  const html = renderHtmlReport(summary, { embed: (key) => artifacts.get(key) });
  const doc = parse(html);
  const all = elements(doc);

  it('is one self-contained document: no script, no external URL in any attribute or style', () => {
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(all.filter((e) => e.tagName === 'script')).toEqual([]);
    expect(all.filter((e) => ['link', 'iframe', 'object', 'embed', 'base'].includes(e.tagName))).toEqual([]);
    for (const el of all) {
      for (const a of el.attrs) {
        expect(a.name.startsWith('on'), `event handler ${a.name} on <${el.tagName}>`).toBe(false);
        expect(a.value, `${a.name} on <${el.tagName}>`).not.toMatch(/^\s*(https?:)?\/\/|javascript:/i);
        if (a.name === 'src' || a.name === 'href') expect(a.value).toMatch(/^data:image\/(png|jpeg|gif|webp);base64,|^#/);
      }
    }
    const css = all.filter((e) => e.tagName === 'style').map(textOf).join('\n');
    expect(css.length).toBeGreaterThan(1000);
    expect(css).not.toMatch(/url\(|@import|https?:/i);
    // URLs from the run appear, but only as text.
    expect(html).toContain('https://shop.example.test/api/cart?x=1&amp;y=&lt;2&gt;');
  });

  it('forbids scripts and network access by Content-Security-Policy', () => {
    const csp = all.find((e) => e.tagName === 'meta' && attr(e, 'http-equiv') === 'Content-Security-Policy');
    expect(attr(csp as Element, 'content')).toBe("default-src 'none'; style-src 'unsafe-inline'; img-src data:");
  });

  it('escapes test names: a <script> name is text, not an element', () => {
    const names = byClass(all, 'name').map(textOf);
    expect(names).toContain(SCRIPT_NAME);
    expect(names).toContain(UNICODE_NAME);
    expect(names).toContain('bell escape[31m nul lone end');
    expect(names).not.toContain(CONTROL_NAME);
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt; search');
    expect(all.filter((e) => e.tagName === 'img').every((img) => attr(img, 'src')?.startsWith('data:image/png;base64,'))).toBe(true);
    // The step text that tries to close <details> early stays inside its card.
    const xssCard = byClass(all, 'card').find((c) => textOf(c).includes('alert(1)'));
    expect(textOf(xssCard as Element)).toContain('</details><script>alert(3)</script>');
  });

  it('shows totals and a pass bar in the header', () => {
    const stats = Object.fromEntries(byClass(all, 'stat').map((s) => [byClass(elements(s), 'label').map(textOf)[0], byClass(elements(s), 'num').map(textOf)[0]]));
    expect(stats).toEqual({ Total: '8', Passed: '3', Failed: '3', Healed: '1', Skipped: '1', Duration: '40.4 s' });
    const segs = byClass(all, 'seg').map((s) => [attr(s, 'class'), attr(s, 'style')]);
    expect(segs).toEqual([
      ['seg passed', 'width:37.50%'],
      ['seg healed', 'width:12.50%'],
      ['seg failed', 'width:37.50%'],
      ['seg skipped', 'width:12.50%'],
    ]);
    expect(byClass(all, 'rate').map(textOf)).toEqual(['57% passed']);
  });

  it('has a card per test; failed cards are open and show kind, message, stack and diagnostics', () => {
    const cards = byClass(all, 'card');
    expect(cards).toHaveLength(8);
    expect(cards.filter((c) => attr(c, 'open') !== undefined).map((c) => attr(c, 'class'))).toEqual(['card failed', 'card failed', 'card failed']);
    const checkout = cards[1];
    const text = textOf(checkout);
    expect(byClass(elements(checkout), 'kind').map(textOf)[0]).toBe('locator');
    expect(byClass(elements(checkout), 'message').map(textOf)[0]).toContain('No element matches #buy-now');
    expect(elements(checkout).some((e) => e.tagName === 'details' && textOf(e).includes('PlaywrightSession.perform'))).toBe(true);
    expect(text).toContain('Uncaught TypeError: cart is undefined');
    expect(text).toContain('net::ERR_CONNECTION_REFUSED');
    expect(text).toContain('npx playwright show-trace <path>');
    expect(text).toContain('runs/r1/checkout-buy/trace.zip');
    const steps = byClass(elements(checkout), 'step').map((s) => attr(s, 'class'));
    expect(steps).toEqual(['step passed', 'step passed', 'step failed', 'step skipped']);
  });

  it('embeds screenshots as data URIs and notes the missing ones', () => {
    const imgs = all.filter((e) => e.tagName === 'img');
    expect(imgs).toHaveLength(2);
    const src = attr(imgs[0], 'src') as string;
    expect(src.startsWith('data:image/png;base64,')).toBe(true);
    expect(Buffer.from(src.slice('data:image/png;base64,'.length), 'base64').equals(PNG)).toBe(true);
    const missing = byClass(all, 'missing').map(textOf);
    expect(missing).toHaveLength(1);
    expect(missing[0]).toContain('runs/r1/checkout-buy/missing.png');
    expect(missing[0]).toContain('not embedded');
  });

  it('lists healed selectors before → after with confidence', () => {
    const table = byClass(all, 'heals')[0];
    const rows = elements(table)
      .filter((e) => e.tagName === 'tr')
      .slice(1)
      .map((tr) => elements(tr).filter((e) => e.tagName === 'td').map(textOf));
    expect(rows).toEqual([
      ['2', '#q', 'input[name="query"]', '93%'],
      ['4', '.result | .item', '[data-testid="result"]', '81%'],
    ]);
  });

  it('notes a screenshot that is not an image instead of embedding it', () => {
    const out = renderHtmlReport(summary, { embed: () => new TextEncoder().encode('<svg onload=alert(1)>') });
    expect(out).not.toContain('data:image');
    expect(out).toContain('not a PNG, JPEG, GIF or WebP image');
  });

  it('renders an empty run', () => {
    const out = renderHtmlReport(makeSummary([]));
    expect(out).toContain('No tests in this run.');
  });
});

describe('HTML report in Chromium', () => {
  let browser: pw.Browser;
  beforeAll(async () => {
    browser = await pw.chromium.launch({ executablePath: await chromium.executablePath(), args: chromium.args, headless: true });
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('runs no script, loads nothing, and filters cards without JavaScript', async () => {
    const html = renderHtmlReport(makeSummary(), { embed: (key) => artifacts.get(key) });
    const page = await browser.newPage({ javaScriptEnabled: true });
    const dialogs: string[] = [];
    const requests: string[] = [];
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    page.on('request', (r) => {
      if (!r.url().startsWith('data:')) requests.push(r.url());
    });
    await page.route('**/*', (route) => route.fulfill({ status: 200, contentType: 'text/html; charset=utf-8', body: html }));
    await page.goto('http://report.invalid/report.html');
    expect(requests).toEqual(['http://report.invalid/report.html']);
    expect(dialogs).toEqual([]);

    const visible = () => page.locator('details.card:visible').count();
    expect(await visible()).toBe(8);
    await page.locator('label[for="f-failed"]').click();
    expect(await visible()).toBe(3);
    expect(await page.locator('details.card:visible .badge').allTextContents()).toEqual(['Failed', 'Failed', 'Failed']);
    await page.locator('label[for="f-healed"]').click();
    expect(await visible()).toBe(1);
    await page.locator('label[for="f-all"]').click();
    expect(await visible()).toBe(8);

    // Cards expand and collapse; the screenshot decodes as an image.
    const passed = page.locator('details.card.passed').first();
    expect(await passed.evaluate((d) => (d as HTMLDetailsElement).open)).toBe(false);
    await passed.locator('summary').click();
    expect(await passed.evaluate((d) => (d as HTMLDetailsElement).open)).toBe(true);
    expect(await passed.locator('img').evaluate((img) => (img as HTMLImageElement).naturalWidth)).toBe(1);
    await page.close();
  });
});
