import { describe, it, expect, beforeAll, afterAll, beforeEach, afterEach } from 'vitest';
import { Fingerprint } from '@svc/core/contracts/fingerprint';
import { createPlaywrightDriver, type PlaywrightDriver } from '../../../packages/functions/src/execution/browser/playwright-driver.ts';
import type { PlaywrightUiSession } from '../../../packages/functions/src/execution/browser/session.ts';
import { MAX_PAGE_FINGERPRINTS, pageFingerprints } from '../../../packages/functions/src/execution/browser/fingerprint.ts';
import { startFixtureApp, type FixtureApp } from '../../fixtures/app/server.ts';
import { assertion, ctx, run, step } from './helpers.ts';

/** Fingerprints: every field for known elements, and pageFingerprints() for a whole page. */

let app: FixtureApp;
let driver: PlaywrightDriver;
let s: PlaywrightUiSession;

beforeAll(async () => {
  app = await startFixtureApp();
  driver = await createPlaywrightDriver({ locateTimeoutMs: 750 });
});
afterAll(async () => {
  await driver?.close();
  await app?.close();
});
beforeEach(async () => {
  s = await driver.openSession({ baseUrl: app.url, trace: false });
});
afterEach(async () => {
  await s.close();
});

/** The element an XPath designates in the page, as its id or outerHTML start (to compare). */
const byXpath = (xpath: string) =>
  s.page.evaluate((x) => {
    const r = document.evaluate(x, document, null, XPathResult.ORDERED_NODE_SNAPSHOT_TYPE, null);
    return { count: r.snapshotLength, html: r.snapshotLength ? (r.snapshotItem(0) as Element).outerHTML.slice(0, 80) : '' };
  }, xpath);

describe('fingerprint of a located element', () => {
  it('an input: every field', async () => {
    await run(s, [{ type: 'goto', url: '/login' }]);
    const { fingerprint: fp } = await s.perform(step({ type: 'fill', selector: { test_id: 'login-email' }, value: 'someone@example.com' }), ctx());
    expect(Fingerprint.parse(fp)).toEqual(fp);
    expect(fp).toMatchObject({
      tag: 'input',
      id: 'email',
      name: 'email',
      classes: ['input', 'input-email'],
      role: 'textbox',
      accessibleName: 'Email',
      testId: 'login-email',
      placeholder: 'you@example.com',
      type: 'email',
      value: '',
      attributes: { id: 'email', name: 'email', type: 'email', class: 'input input-email', placeholder: 'you@example.com', 'data-testid': 'login-email', autocomplete: 'username', value: '' },
      xpath: '/html/body/main[1]/form[1]/input[1]',
      idXpath: '//*[@id="email"]',
      isButton: false,
      visible: true,
    });
    expect(fp!.text).toBeUndefined();
    expect(fp!.neighborText).toEqual(['Email', 'Password', 'Sign in']);
    expect(fp!.box).toMatchObject({ width: 320 });
    expect(fp!.box!.x).toBeGreaterThan(0);
    expect(fp!.box!.height).toBeGreaterThan(10);
    // the XPaths designate exactly that element
    expect(await byXpath(fp!.xpath!)).toEqual({ count: 1, html: expect.stringContaining('id="email"') });
    expect(await byXpath(fp!.idXpath!)).toEqual({ count: 1, html: expect.stringContaining('id="email"') });
  });

  it('a button: text, role, accessible name, isButton; a password field never records its value', async () => {
    await run(s, [{ type: 'goto', url: '/login' }, { type: 'fill', selector: '#password', value: 'hunter2' }]);
    const pw = (await s.check(assertion({ type: 'visible', selector: '#password' }), ctx())).fingerprint!;
    expect(pw.value).toBeUndefined();
    expect(pw.attributes).not.toHaveProperty('value');
    expect(JSON.stringify(pw)).not.toContain('hunter2');
    expect(pw.role).toBeUndefined(); // password inputs have no ARIA role
    expect(pw.accessibleName).toBe('Password');

    const btn = (await s.check(assertion({ type: 'enabled', selector: { role: 'button', name: 'Sign in' } }), ctx())).fingerprint!;
    expect(btn).toMatchObject({ tag: 'button', id: 'login-submit', type: 'submit', text: 'Sign in', role: 'button', accessibleName: 'Sign in', testId: 'login-submit', isButton: true, visible: true, classes: ['btn', 'btn-primary'] });
    expect(btn.neighborText).toContain('Remember me');
  });

  it('a checkbox in a wrapping label: the label is its name and first neighbour', async () => {
    await run(s, [{ type: 'goto', url: '/form' }]);
    const fp = (await s.perform(step({ type: 'check', selector: '#newsletter' }), ctx())).fingerprint!;
    expect(fp).toMatchObject({ role: 'checkbox', accessibleName: 'Subscribe to the newsletter', testId: 'newsletter', type: 'checkbox' });
    expect(fp.neighborText![0]).toBe('Subscribe to the newsletter');
    expect(fp.idXpath).toBe('//*[@id="newsletter"]');
  });

  it('an image, a link and a labelled landmark: alt, title, href, aria-label', async () => {
    await run(s, [{ type: 'goto', url: '/' }]);
    const img = (await s.check(assertion({ type: 'visible', selector: { role: 'img', name: 'Fixture Shop logo' } }), ctx())).fingerprint!;
    expect(img).toMatchObject({ tag: 'img', alt: 'Fixture Shop logo', title: 'Our logo', role: 'img', accessibleName: 'Fixture Shop logo' });
    expect(img.neighborText).toContain('Fixture Shop');
    const link = (await s.check(assertion({ type: 'visible', selector: { role: 'link', name: 'Get started' } }), ctx())).fingerprint!;
    expect(link).toMatchObject({ tag: 'a', href: '/login', role: 'link', accessibleName: 'Get started', text: 'Get started', testId: 'get-started', isButton: false });
    const nav = (await s.check(assertion({ type: 'visible', selector: { role: 'navigation' } }), ctx())).fingerprint!;
    expect(nav).toMatchObject({ tag: 'nav', ariaLabel: 'Main', accessibleName: 'Main', role: 'navigation' });
    expect(nav.text!.startsWith('Home Login Dashboard')).toBe(true);
  });

  it('an element without an id: idXpath is anchored at the nearest ancestor with one', async () => {
    await run(s, [{ type: 'goto', url: '/table' }]);
    const fp = (await s.check(assertion({ type: 'text', selector: 'tbody tr:nth-child(2) td.price', equals: '0.25' }), ctx())).fingerprint!;
    expect(fp.idXpath).toBe('//*[@id="products"]/tbody[1]/tr[2]/td[3]');
    expect(fp.xpath).toBe('/html/body/main[1]/table[1]/tbody[1]/tr[2]/td[3]');
    expect(fp).toMatchObject({ tag: 'td', role: 'cell', text: '0.25', accessibleName: '0.25', classes: ['price'] });
    expect(fp.neighborText).toEqual(['Hardware', 'Products']);
    expect((await byXpath(fp.idXpath!)).html).toBe('<td class="price">0.25</td>');
  });

  it('a select reports its current value; text is capped at 500 characters', async () => {
    await run(s, [{ type: 'goto', url: '/form' }]);
    const fp = (await s.perform(step({ type: 'select', selector: '#topic', label: 'Sales' }), ctx())).fingerprint!;
    expect(fp).toMatchObject({ tag: 'select', role: 'combobox', accessibleName: 'Topic', value: '' });
    expect((await s.check(assertion({ type: 'value', selector: '#topic', equals: 'sales' }), ctx())).fingerprint!.value).toBe('sales');
    await s.page.evaluate(() => document.body.insertAdjacentHTML('beforeend', `<p id="long">${'word '.repeat(300)}</p>`));
    const long = (await s.check(assertion({ type: 'visible', selector: '#long' }), ctx())).fingerprint!;
    expect(long.text!.length).toBe(500);
  });
});

describe('pageFingerprints', () => {
  it('returns every visible element of /table with a box, and nothing hidden', async () => {
    await run(s, [{ type: 'goto', url: '/table' }]);
    const all = await s.pageFingerprints();
    // what the page itself counts as visible elements under <body> (excluding <script>)
    const expected = await s.page.evaluate(() => Array.from(document.body.querySelectorAll('*')).filter((e) => e.localName !== 'script' && e.getClientRects().length > 0 && e.getBoundingClientRect().width > 0 && e.getBoundingClientRect().height > 0 && getComputedStyle(e).visibility === 'visible').length);
    expect(all.length).toBe(expected);
    expect(all.length).toBeGreaterThan(60);
    for (const fp of all) {
      expect(fp.visible).toBe(true);
      expect(fp.box!.width).toBeGreaterThan(0);
      expect(fp.box!.height).toBeGreaterThan(0);
      expect(fp.xpath).toMatch(/^\/html\/body/);
    }
    expect(all.filter((f) => f.testId === 'product-row')).toHaveLength(10);
    expect(all.filter((f) => f.tag === 'td')).toHaveLength(30);
    expect(all.filter((f) => f.tag === 'a')).toHaveLength(11);
    expect(all.find((f) => f.id === 'filter')).toMatchObject({ placeholder: 'Filter products', role: 'textbox', accessibleName: 'Filter' });
    expect(all.find((f) => f.id === 'sort-price')).toMatchObject({ isButton: true, text: 'Price' });
    expect(all.find((f) => f.tag === 'table')).toMatchObject({ role: 'table', accessibleName: 'Product catalogue' });
    expect(all.find((f) => f.id === 'empty')).toBeUndefined(); // hidden "No products match"
    // boxes are in page coordinates: later rows are lower
    const rows = all.filter((f) => f.testId === 'product-row');
    expect(rows[9].box!.y).toBeGreaterThan(rows[0].box!.y);
  });

  it('boxes include the scroll offset', async () => {
    await run(s, [{ type: 'goto', url: '/scroll' }, { type: 'scroll', to: 'bottom' }]);
    const all = await s.pageFingerprints();
    const button = all.find((f) => f.id === 'bottom-button')!;
    expect(button.box!.y).toBeGreaterThan(3_000);
  });

  it('is capped (20,000 by default) and cheap on wide pages', async () => {
    expect(MAX_PAGE_FINGERPRINTS).toBe(20_000);
    await s.page.setContent(`<div id="wide">${'<p>x</p>'.repeat(3_000)}</div>`);
    expect(await pageFingerprints(s.page, 50)).toHaveLength(50);
    const all = await s.pageFingerprints();
    expect(all).toHaveLength(3_001);
    expect(all[3_000]).toMatchObject({ xpath: '/html/body/div[1]/p[3000]', idXpath: '//*[@id="wide"]/p[3000]', text: 'x' });
  });
});
