import { describe, it, expect, beforeAll, afterAll, beforeEach, afterEach } from 'vitest';
import { createPlaywrightDriver, type PlaywrightDriver } from '../../../packages/functions/src/execution/browser/playwright-driver.ts';
import type { PlaywrightUiSession } from '../../../packages/functions/src/execution/browser/session.ts';
import { startFixtureApp, type FixtureApp } from '../../fixtures/app/server.ts';
import type { UiAssertion } from '@svc/core/contracts/steps';
import { assertion, ctx, failure, run, step } from './helpers.ts';

/** Every UI assertion type: passes on the fixture app, fails with expected vs actual when wrong. */

let app: FixtureApp;
let driver: PlaywrightDriver;
let s: PlaywrightUiSession;

beforeAll(async () => {
  app = await startFixtureApp();
  driver = await createPlaywrightDriver({ locateTimeoutMs: 500, assertTimeoutMs: 3_000 });
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

const check = (a: unknown, ms = 10_000) => s.check(assertion(a), ctx(ms));
/** Failing checks retry for 400 ms only (passing ones get the driver's 3 s, robust on a busy machine). */
const fails = (a: Record<string, unknown>, ms = 10_000) => failure(() => check({ timeout_ms: 400, ...a }, ms));

describe('visible / hidden', () => {
  it('visible passes for a visible element and returns its fingerprint', async () => {
    await run(s, [{ type: 'goto', url: '/hover' }]);
    const r = await check({ type: 'visible', selector: { role: 'button', name: 'Info' } });
    expect(r.fingerprint).toMatchObject({ id: 'info-button', visible: true });
  });

  it('visible fails: hidden element → assertion; missing → locator; several → locator', async () => {
    await run(s, [{ type: 'goto', url: '/hover' }]);
    let f = await fails({ type: 'visible', selector: '#tooltip' });
    expect(f.kind).toBe('assertion');
    expect(f.message).toMatch(/^visible: expected "#tooltip" to be visible, but it is hidden \(waited \d+ ms\)$/);
    f = await fails({ type: 'visible', selector: '#popover' });
    expect([f.kind, f.message]).toEqual(['locator', 'visible: "#popover" matched 0 elements']);
    f = await fails({ type: 'visible', selector: 'nav a' });
    expect([f.kind, f.message]).toEqual(['locator', 'visible: "nav a" matched 11 elements']);
  });

  it('hidden passes for a hidden or absent element, fails for a visible one', async () => {
    await run(s, [{ type: 'goto', url: '/hover' }]);
    const r = await check({ type: 'hidden', selector: '#tooltip' });
    expect(r.fingerprint).toMatchObject({ id: 'tooltip', visible: false });
    await check({ type: 'hidden', selector: '#no-such-thing' });
    const f = await fails({ type: 'hidden', selector: 'h1' });
    expect(f.kind).toBe('assertion');
    expect(f.message).toMatch(/^hidden: expected "h1" to be hidden, but it is visible/);
  });

  it('waits (retries) until the condition holds', async () => {
    await run(s, [{ type: 'goto', url: '/hover' }]);
    await s.page.evaluate(() => setTimeout(() => (document.getElementById('tooltip')!.hidden = false), 300));
    await check({ type: 'visible', selector: '#tooltip', timeout_ms: 3_000 });
  });
});

describe('text / value', () => {
  it('text: equals (whitespace collapsed), contains, matches', async () => {
    await run(s, [{ type: 'goto', url: '/' }]);
    const r = await check({ type: 'text', selector: 'h1', equals: 'Fixture Shop' });
    expect(r.fingerprint?.tag).toBe('h1');
    await check({ type: 'text', selector: '#intro', contains: 'test runner' });
    await check({ type: 'text', selector: { text: 'A small app' }, matches: '^A small app .* against\\.$' });
  });

  it('text retries until the page changes it', async () => {
    await run(s, [{ type: 'goto', url: '/' }]);
    await s.page.evaluate(() => setTimeout(() => (document.querySelector('h1')!.textContent = 'Later  title'), 300));
    await check({ type: 'text', selector: 'h1', equals: 'Later title', timeout_ms: 3_000 });
  });

  it('text fails with expected vs received', async () => {
    await run(s, [{ type: 'goto', url: '/' }]);
    let f = await fails({ type: 'text', selector: 'h1', equals: 'Fixture Store' });
    expect([f.kind, f.message]).toEqual(['assertion', 'text: expected the text of "h1" to equal "Fixture Store", received "Fixture Shop"']);
    f = await fails({ type: 'text', selector: 'h1', contains: 'Store' });
    expect(f.message).toBe('text: expected the text of "h1" to contain "Store", received "Fixture Shop"');
    f = await fails({ type: 'text', selector: 'h1', matches: '^Shop' });
    expect(f.message).toBe('text: expected the text of "h1" to match /^Shop/, received "Fixture Shop"');
    expect(f.details).toMatchObject({ selector: '"h1"', actual: 'Fixture Shop' });
  });

  it('value of inputs, selects and textareas; fails with expected vs received', async () => {
    await run(s, [
      { type: 'goto', url: '/form' },
      { type: 'fill', selector: '#name', value: 'Grace' },
      { type: 'select', selector: '#topic', value: 'sales' },
      { type: 'fill', selector: '#message', value: 'Line one' },
    ]);
    await check({ type: 'value', selector: { label: 'Name' }, equals: 'Grace' });
    await check({ type: 'value', selector: '#topic', equals: 'sales' });
    await check({ type: 'value', selector: '#message', contains: 'one' });
    await check({ type: 'value', selector: '#contact-email', equals: '' });
    const f = await fails({ type: 'value', selector: '#name', equals: 'Ada' });
    expect([f.kind, f.message]).toEqual(['assertion', 'value: expected the value of "#name" to equal "Ada", received "Grace"']);
  });

  it('text and attribute locate strictly in the read: several → locator with the count; a late element is waited for', async () => {
    await run(s, [{ type: 'goto', url: '/table' }]);
    let f = await fails({ type: 'text', selector: 'tbody tr', contains: 'x' });
    expect([f.kind, f.message]).toEqual(['locator', 'text: "tbody tr" matched 10 elements']);
    f = await fails({ type: 'attribute', selector: 'th', attribute: 'aria-sort', exists: true });
    expect([f.kind, f.message]).toEqual(['locator', 'attribute: "th" matched 3 elements']);
    // Handed to the session as is: the schema refuses this selector when a test is saved (selector-syntax.ts); this is the run-time path for one that gets past it.
    f = await failure(() => s.check({ type: 'text', selector: 'div[[', equals: 'x', timeout_ms: 400 } as UiAssertion, ctx(10_000)));
    expect([f.kind, f.message]).toEqual(['locator', expect.stringMatching(/^text: "div\[\[" is not a valid selector \(/)]);
    expect(f.message).not.toContain('svc_fp');
    await s.page.evaluate(() => setTimeout(() => document.body.insertAdjacentHTML('beforeend', '<p id="late" data-state="ready">Arrived  late</p>'), 200));
    const r = await check({ type: 'text', selector: '#late', equals: 'Arrived late' });
    expect(r.fingerprint).toMatchObject({ id: 'late', tag: 'p' });
    expect((await check({ type: 'attribute', selector: '#late', attribute: 'data-state', equals: 'ready' })).fingerprint?.id).toBe('late');
  });

  it('a missing element is a locator failure, not an assertion', async () => {
    await run(s, [{ type: 'goto', url: '/form' }]);
    const f = await fails({ type: 'value', selector: '#surname', equals: 'x' });
    expect([f.kind, f.message]).toEqual(['locator', 'value: "#surname" matched 0 elements']);
  });
});

describe('url / title', () => {
  it('url: equals (absolute or a path on the base URL), contains, matches; fails with the actual URL', async () => {
    await run(s, [{ type: 'goto', url: '/flag?variant=b' }]);
    await check({ type: 'url', equals: `${app.url}/flag?variant=b` });
    await check({ type: 'url', equals: '/flag?variant=b' });
    await check({ type: 'url', contains: 'variant=b' });
    await check({ type: 'url', matches: '/flag\\?variant=[ab]$' });
    const f = await fails({ type: 'url', contains: '/checkout' });
    expect([f.kind, f.message]).toEqual(['assertion', `url: expected the URL to contain "/checkout", received "${app.url}/flag?variant=b"`]);
  });

  it('title: passes and fails with the actual title', async () => {
    await run(s, [{ type: 'goto', url: '/table' }]);
    await check({ type: 'title', equals: 'Products — Fixture Shop' });
    await check({ type: 'title', matches: '^Products' });
    const f = await fails({ type: 'title', contains: 'Orders' });
    expect([f.kind, f.message]).toEqual(['assertion', 'title: expected the title to contain "Orders", received "Products — Fixture Shop"']);
  });
});

describe('count', () => {
  it('equals / min / max, following client-side filtering and pagination', async () => {
    await run(s, [{ type: 'goto', url: '/table' }]);
    await check({ type: 'count', selector: { test_id: 'product-row' }, equals: 10 });
    await check({ type: 'count', selector: 'tbody tr', min: 5, max: 10 });
    await run(s, [{ type: 'fill', selector: { placeholder: 'Filter products' }, value: 'ILL' }]);
    // Drill and Quill: filtering is case-insensitive on the name
    await check({ type: 'count', selector: { test_id: 'product-row' }, equals: 2 });
    await run(s, [{ type: 'fill', selector: '#filter', value: 'zzz' }]);
    await check({ type: 'count', selector: { test_id: 'product-row' }, equals: 0 });
    await check({ type: 'visible', selector: { text: 'No products match' } });
    await run(s, [{ type: 'fill', selector: '#filter', value: '' }, { type: 'click', selector: { role: 'button', name: 'Next' } }]);
    await check({ type: 'text', selector: '#page-info', equals: 'Page 2 of 2' });
    await check({ type: 'count', selector: { test_id: 'product-row' }, max: 10 });
  });

  it('fails with expected vs received', async () => {
    await run(s, [{ type: 'goto', url: '/table' }]);
    const f = await fails({ type: 'count', selector: { test_id: 'product-row' }, equals: 20 });
    expect([f.kind, f.message]).toEqual(['assertion', 'count: expected data-testid="product-row" to match exactly 20 element(s), received 10']);
    const g = await fails({ type: 'count', selector: 'tbody tr', min: 11, max: 30 });
    expect(g.message).toBe('count: expected "tbody tr" to match at least 11 and at most 30 element(s), received 10');
  });
});

describe('attribute', () => {
  it('equals / contains / matches / exists, with retries while the page updates', async () => {
    await run(s, [{ type: 'goto', url: '/table' }]);
    await check({ type: 'attribute', selector: '#price-header', attribute: 'aria-sort', equals: 'none' });
    await run(s, [{ type: 'click', selector: { test_id: 'sort-price' } }]);
    await check({ type: 'attribute', selector: '#price-header', attribute: 'aria-sort', equals: 'ascending' });
    await check({ type: 'text', selector: 'tbody tr:first-child .name', equals: 'Nail' });
    await run(s, [{ type: 'click', selector: { test_id: 'sort-price' } }]);
    await check({ type: 'attribute', selector: '#price-header', attribute: 'aria-sort', matches: '^desc' });
    await check({ type: 'text', selector: 'tbody tr:first-child .name', equals: 'Drill' });
    await check({ type: 'attribute', selector: '#filter', attribute: 'placeholder', contains: 'Filter' });
    await check({ type: 'attribute', selector: '#prev', attribute: 'disabled', exists: true });
    await check({ type: 'attribute', selector: '#next', attribute: 'disabled', exists: false });
  });

  it('fails with expected vs received', async () => {
    await run(s, [{ type: 'goto', url: '/table' }]);
    let f = await fails({ type: 'attribute', selector: '#price-header', attribute: 'aria-sort', equals: 'ascending' });
    expect([f.kind, f.message]).toEqual(['assertion', 'attribute: expected attribute "aria-sort" of "#price-header" to equal "ascending", received "none"']);
    f = await fails({ type: 'attribute', selector: '#next', attribute: 'disabled', exists: true });
    expect(f.message).toBe('attribute: expected attribute "disabled" of "#next" to be present, received no such attribute');
    f = await fails({ type: 'attribute', selector: '#filter', attribute: 'data-x', contains: 'y' });
    expect(f.message).toBe('attribute: expected attribute "data-x" of "#filter" to contain "y", received no such attribute');
  });
});

describe('enabled / disabled', () => {
  it('passes and fails both ways', async () => {
    await run(s, [{ type: 'goto', url: '/form' }]);
    await check({ type: 'enabled', selector: '#submit-contact' });
    const r = await check({ type: 'disabled', selector: { role: 'button', name: 'Archive' } });
    expect(r.fingerprint?.id).toBe('archive');
    let f = await fails({ type: 'enabled', selector: '#archive' });
    expect([f.kind, f.message]).toEqual(['assertion', 'enabled: expected "#archive" to be enabled, received disabled']);
    f = await fails({ type: 'disabled', selector: '#submit-contact' });
    expect([f.kind, f.message]).toEqual(['assertion', 'disabled: expected "#submit-contact" to be disabled, received enabled']);
  });
});

describe('deadlines', () => {
  it("an assertion retries until its own timeout_ms, else the driver's default", async () => {
    await run(s, [{ type: 'goto', url: '/' }]);
    let t = Date.now();
    await fails({ type: 'title', equals: 'nope', timeout_ms: 1_000 });
    expect(Date.now() - t).toBeGreaterThanOrEqual(950);
    const quick = await createPlaywrightDriver({ assertTimeoutMs: 300 });
    const q = await quick.openSession({ baseUrl: app.url, trace: false });
    try {
      await q.perform(step({ type: 'goto', url: '/' }), ctx());
      t = Date.now();
      await failure(() => q.check(assertion({ type: 'title', equals: 'nope' }), ctx()));
      expect(Date.now() - t).toBeGreaterThanOrEqual(290);
    } finally {
      await quick.close();
    }
  });
});
