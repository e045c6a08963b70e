import { describe, it, expect } from 'vitest';
import { reviewTest } from '../../packages/core/src/intelligence/generation/review.ts';
import { FailureEvent, reproduceEvent, consoleShowsError, consoleCheckFor } from '../../packages/core/src/intelligence/generation/from-event.ts';
import { TestDefinition, type Step } from '../../packages/core/src/contracts/steps.ts';
import { confidenceScore } from '../../packages/core/src/intelligence/generation/confidence.ts';

const rules = (steps: Step[], type: 'ui' | 'api' = 'ui') => reviewTest({ type, steps }).findings.map((f) => `${f.rule}:${f.severity}${f.step !== undefined ? `@${f.step}` : ''}`);

describe('review', () => {
  it('a clean test has no findings and a full score', () => {
    const r = reviewTest({ type: 'ui', steps: [{ type: 'goto', url: '/login' }, { type: 'fill', selector: { label: 'Password' }, value: '{{secrets.PASSWORD}}' }, { type: 'click', selector: { role: 'button', name: 'Sign in' } }, { type: 'assert', assertion: { type: 'url', contains: '/dashboard' } }] });
    expect(r).toEqual({ score: 100, findings: [] });
  });

  it('finds brittle selectors, fixed waits, credentials, missing assertions, duplicates, missing waits after navigation', () => {
    const found = rules([
      { type: 'goto', url: 'https://staging.example.com/login' },
      { type: 'fill', selector: '#password', value: 'hunter2' },
      { type: 'click', selector: { xpath: '/html/body/div[2]/form/button' } },
      { type: 'click', selector: 'div.main > ul > li:nth-child(3) > a' },
      { type: 'wait-for', ms: 3000 },
      { type: 'click', selector: { role: 'link', name: 'Orders' } },
      { type: 'click', selector: { role: 'link', name: 'Orders' } },
      { type: 'click', selector: '.css-1x2y3z4' },
    ]);
    expect(found).toEqual(expect.arrayContaining([
      'no-assertions:high',
      'absolute-url:low@0',
      'hard-coded-credential:high@1',
      'brittle-selector:medium@2',
      'brittle-selector:medium@3',
      'fixed-wait:medium@4',
      'missing-wait-after-navigation:low@5',
      'duplicate-step:low@6',
      'brittle-selector:medium@7',
    ]));
    const r = reviewTest({ type: 'ui', steps: [{ type: 'wait-for', ms: 100 }] });
    for (const f of r.findings) expect(f.suggestion.length).toBeGreaterThan(10);
    expect(r.score).toBeLessThan(100);
  });

  it("reviews the trailing assertions' locators too, naming the assertion; a duplicate step is counted from 1 in words", () => {
    const r = reviewTest({
      type: 'ui',
      steps: [{ type: 'goto', url: '/items' }, { type: 'click', selector: { role: 'link', name: 'More' } }, { type: 'click', selector: { role: 'link', name: 'More' } }],
      assertions: [
        { type: 'text', selector: '#items tbody tr:nth-child(2) td:first-child', equals: 'Banana' },
        { type: 'visible', selector: { role: 'heading', name: 'Items' } },
        { type: 'visible', selector: 'xpath=/html/body/main/table' },
      ],
    });
    const brittle = r.findings.filter((f) => f.rule === 'brittle-selector');
    expect(brittle.map((f) => [f.assertion, f.severity])).toEqual([[0, 'medium'], [2, 'medium']]);
    expect(brittle[0]!.message).toMatch(/^assertion 1: #items tbody tr:nth-child\(2\) td:first-child: a position/);
    expect(r.findings.find((f) => f.rule === 'duplicate-step')).toMatchObject({ step: 2, message: 'step 3 repeats step 2' });
    expect(r.score).toBeLessThan(100);
  });

  it('API tests: literal tokens and unchecked responses', () => {
    const found = rules([{ type: 'request', method: 'GET', url: '/api/me', auth: { type: 'bearer', token: 'abc123' } }, { type: 'request', method: 'GET', url: '/api/x', headers: { Authorization: '{{secrets.TOKEN}}' } }, { type: 'assert', assertion: { type: 'status', equals: 200 } }] as Step[], 'api');
    expect(found).toEqual(['hard-coded-credential:high@0', 'unchecked-response:low@0']);
  });
});

describe('production failure events', () => {
  const event = FailureEvent.parse({
    message: 'Uncaught TypeError: Cannot read properties of undefined (reading "total")',
    stack: 'TypeError: Cannot read properties of undefined\n    at render (app.js:10:5)',
    url: 'https://shop.example.com/dashboard?tab=orders',
    user_agent: 'Mozilla/5.0 (X11; Linux x86_64) Chrome/120',
    breadcrumbs: [
      { category: 'navigation', data: { from: 'https://shop.example.com/login', to: 'https://shop.example.com/login' } },
      { category: 'ui.input', message: 'input#email', data: { value: 'demo@example.com' } },
      { category: 'ui.input', message: 'input#password' },
      { category: 'ui.click', message: 'button#login-submit' },
      { category: 'navigation', data: { from: '/login', to: '/dashboard' } },
      { category: 'fetch', data: { method: 'GET', url: 'https://shop.example.com/api/orders', status_code: 500 } },
      { category: 'console', message: 'something logged' },
    ],
  });

  it('replays the breadcrumbs, ends on the failing page, re-sends the failing request and lists what it skipped', () => {
    const r = reproduceEvent(event);
    expect(TestDefinition.safeParse(r.test).success).toBe(true);
    expect(r.test.steps).toEqual([
      { type: 'goto', url: '/login' },
      { type: 'fill', selector: { css: 'input#email' }, value: 'demo@example.com' },
      { type: 'click', selector: { css: 'button#login-submit' } },
      { type: 'goto', url: '/dashboard?tab=orders' },
      { type: 'assert', assertion: { type: 'url', matches: '^https?://[^/]+/dashboard' } },
      { type: 'request', method: 'GET', url: '/api/orders', name: 'the request that failed with 500' },
      { type: 'assert', assertion: { type: 'status', in: [200, 201, 202, 204, 301, 302, 303, 304, 307, 308] }, name: 'not 500 any more' },
    ]);
    expect(r.failing_request).toEqual({ method: 'GET', url: 'https://shop.example.com/api/orders', status: 500 });
    expect(r.skipped.map((s) => s.what)).toEqual(['ui.input', 'console']);
    expect(r.skipped[0].reason).toMatch(/value/);
    expect(r.console_error).toBe('TypeError: Cannot read properties of undefined (reading "total")');
    expect(r.test.description).toContain('Chrome/120');
  });

  it('ends with a no_console_error check on the error\'s message, so the test fails while the error happens and passes once it is fixed', () => {
    const r = reproduceEvent(event);
    const check = { type: 'no_console_error', contains: 'Cannot read properties of undefined (reading "total")', name: 'the production error does not happen again', quiet_ms: 1000, timeout_ms: 5000 };
    expect(r.test.assertions).toEqual([check]);
    expect(r.console_check).toEqual(check);
    expect(TestDefinition.parse(r.test).assertions).toEqual([check]);
    // Without a failed request, the console check alone is a check of the failure: full confidence for a full replay.
    const noRequest = reproduceEvent(FailureEvent.parse({ message: 'Error: Boom failed 500', url: '/late-error' }));
    expect(noRequest.test.assertions).toEqual([{ ...check, contains: 'Boom failed 500' }]);
    expect(noRequest.confidence).toBe(1);
  });

  it('the console check looks for the text as Chromium shows it: without the error class, short messages as a whole first line; none for messages no console shows', () => {
    const check = (message: string) => {
      const a = consoleCheckFor(message);
      return a && ('contains' in a && a.contains !== undefined ? { contains: a.contains } : { matches: (a as { matches?: string }).matches });
    };
    expect(check('Uncaught TypeError: x is not a function')).toEqual({ contains: 'x is not a function' });
    expect(check('Uncaught (in promise) Error: request aborted\n  at y')).toEqual({ contains: 'request aborted' });
    expect(check('fixture: widget failed to render')).toEqual({ contains: 'fixture: widget failed to render' });
    const short = check('Error: oops.')!.matches!;
    expect(short).toBe('^(?:Uncaught )?(?:[A-Za-z]*Error: )?oops\\.(?:\\n|$)');
    for (const seen of ['Uncaught oops.', 'Error: oops.\n    at f (app.js:1:1)', 'oops.']) expect(new RegExp(short).test(seen), seen).toBe(true);
    for (const other of ['Uncaught loops.', 'oops. again', 'oopsy']) expect(new RegExp(short).test(other), other).toBe(false);
    for (const opaque of ['Script error.', 'Script error', 'Non-Error promise rejection captured with value: undefined', 'Non-Error exception captured with keys: a, b', 'Uncaught ']) expect(consoleCheckFor(opaque), opaque).toBeUndefined();
    const r = reproduceEvent(FailureEvent.parse({ message: 'Script error.', url: '/table' }));
    expect(r.test.assertions).toEqual([]);
    expect(r.console_check).toBeUndefined();
    expect(r.confidence).toBe(0.9);
  });

  it('matches the error in a run\'s console errors', () => {
    expect(consoleShowsError(['TypeError: Cannot read properties of undefined (reading "total")\n at x'], event.message)).toBe(true);
    expect(consoleShowsError(['Uncaught Cannot read properties of undefined (reading "total")'], event.message)).toBe(true);
    expect(consoleShowsError(['ReferenceError: y is not defined'], event.message)).toBe(false);
  });

  it('an event needs a message and a URL', () => {
    const r = FailureEvent.safeParse({ breadcrumbs: [] });
    expect(r.success).toBe(false);
    expect(r.error!.issues.map((i) => i.path.join('.'))).toEqual(['message', 'url']);
  });

  it('an event url must be an http(s) URL or a path; a navigation breadcrumb to something else is skipped (found by QA: "not a url" became goto "not a url")', () => {
    for (const url of ['not a url', 'javascript:alert(1)', 'file:///etc/passwd', '//evil.example/x', 'http://']) {
      const r = FailureEvent.safeParse({ message: 'boom', url });
      expect(r.success, url).toBe(false);
      expect(r.error!.issues[0]).toMatchObject({ path: ['url'], message: 'give the page the error happened on as an http(s) URL or a path starting with /' });
    }
    for (const url of ['https://shop.example.com/checkout?step=2', '/checkout', '/']) expect(FailureEvent.safeParse({ message: 'boom', url }).success, url).toBe(true);
    const r = reproduceEvent(FailureEvent.parse({ message: 'boom', url: 'https://shop.example.com/cart', breadcrumbs: [{ category: 'navigation', data: { from: 'somewhere', to: 'elsewhere' } }] }));
    expect(r.test.steps[0]).toEqual({ type: 'goto', url: '/cart' });
    expect(r.skipped).toEqual([{ at: 0, what: 'navigation', reason: 'navigation to "elsewhere": not an http(s) URL or a path' }]);
  });
});

describe('confidence', () => {
  it('a pass raises, a failure lowers, not executed discounts', () => {
    expect(confidenceScore(0.8, 'passed')).toBe(0.9);
    expect(confidenceScore(0.8, 'failed')).toBe(0.24);
    expect(confidenceScore(0.8, 'not_executed')).toBe(0.48);
  });

  it('a test that could not have failed (weak: it checks nothing) scores as low as a failed one, whatever its run did', () => {
    expect(confidenceScore(1, 'passed', { weak: true })).toBe(0.3);
    expect(confidenceScore(0.8, 'not_executed', { weak: true })).toBe(0.24);
  });
});
