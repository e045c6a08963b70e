import { describe, it, expect } from 'vitest';
import { parsePlainLanguage, toTestDefinition } from '../../packages/core/src/intelligence/generation/plain-language.ts';
import { parseSentence } from '../../packages/core/src/intelligence/generation/grammar/parse-sentence.ts';
import { TestDefinition, type Step } from '../../packages/core/src/contracts/steps.ts';

/** One sentence → its steps (fails the test when not understood). */
function steps(sentence: string, section?: 'given' | 'when' | 'then'): Step[] {
  const r = parseSentence(sentence, section);
  if (!r.ok) throw new Error(`not understood: ${sentence} (${r.reason}; closest ${r.closest})`);
  return r.steps;
}
const assertion = (sentence: string, section?: 'given' | 'when' | 'then') => {
  const s = steps(sentence, section);
  expect(s).toHaveLength(1);
  expect(s[0].type).toBe('assert');
  return (s[0] as Extract<Step, { type: 'assert' }>).assertion;
};

describe('navigation', () => {
  it('quoted paths and URLs, named pages, the home page', () => {
    expect(steps('go to "/login"')).toEqual([{ type: 'goto', url: '/login' }]);
    expect(steps('Navigate to https://example.com/x')).toEqual([{ type: 'goto', url: 'https://example.com/x' }]);
    expect(steps('open the login page')).toEqual([{ type: 'goto', url: '/login' }]);
    expect(steps('Given I am on the sign up page')).toEqual([{ type: 'goto', url: '/sign-up' }]);
    expect(steps('I open the app')).toEqual([{ type: 'goto', url: './' }]);
    expect(steps('visit the home page')).toEqual([{ type: 'goto', url: './' }]);
  });

  it('"on the X page" is a navigation under Given and a URL check under Then', () => {
    expect(steps('I am on the dashboard page', 'given')).toEqual([{ type: 'goto', url: '/dashboard' }]);
    expect(assertion('I am on the dashboard page', 'then')).toEqual({ type: 'url', contains: 'dashboard' });
  });
});

describe('actions', () => {
  it('click: a role word gives a structured role + name locator; no role word, a button-or-link union', () => {
    expect(steps('click the "Save" button')).toEqual([{ type: 'click', selector: { role: 'button', name: 'Save' } }]);
    expect(steps('click the link "Pricing"')).toEqual([{ type: 'click', selector: { role: 'link', name: 'Pricing' } }]);
    const [click] = steps('click "Sign in"') as Array<Extract<Step, { type: 'click' }>>;
    expect(click.type).toBe('click');
    expect(click.selector).toEqual(expect.stringContaining('internal:role=button[name=/^\\s*Sign in(?!\\w)/i]'));
    expect(click.selector).toEqual(expect.stringContaining('internal:or='));
    expect(steps('The user clicks on the sign in button')).toEqual([{ type: 'click', selector: { role: 'button', name: 'sign in' } }]);
  });

  it('fill / enter / type / select / check / press', () => {
    const fill = steps('fill "Email" with "a@b.c"')[0] as Extract<Step, { type: 'fill' }>;
    expect(fill).toMatchObject({ type: 'fill', value: 'a@b.c' });
    expect(fill.selector).toContain('internal:label="Email"i');
    expect(fill.selector).toContain('placeholder');
    expect(steps('I enter "bob" in the username field')[0]).toMatchObject({ type: 'fill', value: 'bob' });
    expect(steps('type "hello" into "Search"')[0]).toMatchObject({ type: 'type', text: 'hello' });
    expect(steps('select "Red" from "Colour"')[0]).toMatchObject({ type: 'select', label: 'Red' });
    expect(steps('check "Remember me"')[0]).toMatchObject({ type: 'check' });
    expect(steps('uncheck "Remember me"')[0]).toMatchObject({ type: 'uncheck' });
    expect(steps('press Enter')).toEqual([{ type: 'press', key: 'Enter' }]);
    expect(steps('press ctrl+a')).toEqual([{ type: 'press', key: 'Control+A' }]);
    expect(steps('hit the escape key')).toEqual([{ type: 'press', key: 'Escape' }]);
  });

  it('a sentence joined with "and" becomes several steps', () => {
    const s = steps('I type "milk" into "New todo" and press Enter');
    expect(s.map((x) => x.type)).toEqual(['type', 'press']);
  });

  it('fixed waits, scrolling, screenshots', () => {
    expect(steps('wait 2 seconds')).toEqual([{ type: 'wait-for', ms: 2000 }]);
    expect(steps('scroll to the bottom of the page')).toEqual([{ type: 'scroll', to: 'bottom' }]);
    expect(steps('take a screenshot named "after login"')).toEqual([{ type: 'screenshot', label: 'after login' }]);
  });

  it('accessibility checks: the page, or a named part of it, is accessible', () => {
    for (const sentence of ['Then the page has no accessibility violations', 'the page is accessible', 'the page should be accessible', 'the checkout page has no a11y issues', 'And the app should have no accessibility problems']) {
      expect(assertion(sentence), sentence).toEqual({ type: 'accessibility' });
    }
    const form = assertion('the login form is accessible');
    expect(form).toEqual({ type: 'accessibility', selector: expect.stringContaining('#login-form') });
    expect(assertion('the "Newsletter" form should have no accessibility violations')).toEqual({ type: 'accessibility', selector: expect.stringContaining('[aria-label="Newsletter" i]') });
    expect(assertion('the main navigation is accessible')).toEqual({ type: 'accessibility', selector: expect.stringMatching(/^:is\(nav, \[role=navigation\]\)/) });
  });

  it('console checks: no console error or uncaught exception', () => {
    for (const sentence of ['there should be no console errors', 'Then there are no JavaScript errors', 'there should be no errors in the console', 'the console should have no errors', 'And the browser console shows no errors', 'the console stays free of errors', 'the checkout page should have no console errors', 'the app throws no JavaScript errors']) {
      expect(assertion(sentence), sentence).toEqual({ type: 'no_console_error' });
    }
    // Not a console check: an error message on the page, or accessibility.
    expect(assertion('the page has no accessibility errors')).toEqual({ type: 'accessibility' });
    expect(assertion('I should not see "Error"')?.type).not.toBe('no_console_error');
  });

  it('visual checks: the page looks as before, or matches a named baseline', () => {
    expect(assertion('Then the page should look as before')).toEqual({ type: 'visual' });
    expect(assertion('the "checkout" page looks unchanged')).toEqual({ type: 'visual', baseline: 'checkout' });
    expect(assertion('the page matches the baseline "home / logged in"')).toEqual({ type: 'visual', baseline: 'home logged in' });
    expect(assertion('compare the page with the visual baseline')).toEqual({ type: 'visual' });
  });
});

describe('UI assertions', () => {
  it('heading, text, not-text, URL, title, count, value, state', () => {
    expect(assertion('expect heading "Welcome"')).toEqual({ type: 'visible', selector: { role: 'heading', name: 'Welcome' } });
    expect(assertion('Then I should see "Saved"')).toEqual({ type: 'text', selector: 'body', contains: 'Saved' });
    expect(assertion('expect text "Saved"')).toEqual({ type: 'text', selector: 'body', contains: 'Saved' });
    const lacks = assertion('I should not see "Invalid (password)"') as { matches: string };
    expect(new RegExp(lacks.matches).test('all good')).toBe(true);
    expect(new RegExp(lacks.matches).test('oops: Invalid (password) here')).toBe(false);
    expect(assertion('expect the URL to contain "/dashboard"')).toEqual({ type: 'url', contains: '/dashboard' });
    expect(assertion('I am redirected to "/dashboard"')).toEqual({ type: 'url', contains: '/dashboard' });
    expect(assertion('expect title "Sign in"')).toEqual({ type: 'title', contains: 'Sign in' });
    expect(assertion('the page title should be "Sign in"')).toEqual({ type: 'title', contains: 'Sign in' });
    expect(assertion('expect 3 items in "todo list"')).toMatchObject({ type: 'count', equals: 3 });
    expect(assertion('there should be three items in the todo list')).toMatchObject({ type: 'count', equals: 3 });
    expect(assertion('expect "Email" to have value "a@b.c"')).toMatchObject({ type: 'value', equals: 'a@b.c' });
    expect(assertion('the "Archive" button should be disabled')).toEqual({ type: 'disabled', selector: { role: 'button', name: 'Archive' } });
  });
});

describe('API sentences', () => {
  it('a request with a status, a JSON body, a bearer token and a header', () => {
    expect(steps('GET /api/items returns 200')).toEqual([{ type: 'request', method: 'GET', url: '/api/items' }, { type: 'assert', assertion: { type: 'status', equals: 200 } }]);
    expect(steps('POST /api/items with {"name": "lamp", "price": 2} and bearer token "t0k" returns 201')).toEqual([
      { type: 'request', method: 'POST', url: '/api/items', json: { name: 'lamp', price: 2 }, auth: { type: 'bearer', token: 't0k' } },
      { type: 'assert', assertion: { type: 'status', equals: 201 } },
    ]);
    expect(steps('send a GET request to /api/Items?q=Lamp with header "X-Trace: 1"')).toEqual([{ type: 'request', method: 'GET', url: '/api/Items?q=Lamp', headers: { 'X-Trace': '1' } }]);
  });

  it('checks on the latest response', () => {
    expect(assertion('the status code should be 201')).toEqual({ type: 'status', equals: 201 });
    expect(assertion('expect response field "id" to exist')).toEqual({ type: 'json', path: '$.id', exists: true });
    expect(assertion('the response field "items[0].name" should be "lamp"')).toEqual({ type: 'json', path: '$.items[0].name', equals: 'lamp' });
    expect(assertion('response field "total" equals 5')).toEqual({ type: 'json', path: '$.total', equals: 5 });
    expect(assertion('the response header "content-type" should contain "json"')).toEqual({ type: 'header', header: 'content-type', contains: 'json' });
    expect(assertion('the response should contain at least 2 posts')).toEqual({ type: 'json_schema', schema: { type: 'array', minItems: 2 } });
    expect(assertion('the response should arrive within 2 seconds')).toEqual({ type: 'response_time', max_ms: 2000 });
  });

  it('a body that is not JSON is reported, not guessed', () => {
    const r = parseSentence('POST /api/items with {name: lamp} returns 201');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason).toMatch(/not valid JSON/);
  });
});

describe('texts and stories', () => {
  it('smart quotes, numbered lists, Given/When/Then with And/But, the "As a" narrative and the scenario name', () => {
    const r = parsePlainLanguage([
      'Feature: Sign in',
      'As a shopper',
      'I want to sign in',
      'so that I see my orders',
      'Scenario: good password',
      'Given I am on the login page',
      'When I fill “Email” with ‘demo@example.com’',
      'And I click "Sign in"',
      'Then I am on the dashboard page',
      'But I should not see "Invalid"',
      '',
      '1. go to "/form"',
      '2) check "Remember me"',
    ].join('\n'));
    expect(r.not_understood).toEqual([]);
    expect(r.name).toBe('good password');
    expect(r.description).toBe('As a shopper, I want to sign in, so that I see my orders.');
    expect(r.steps[0]).toEqual({ type: 'goto', url: '/login' });
    expect(r.steps[1]).toMatchObject({ type: 'fill', value: 'demo@example.com' });
    expect(r.steps[3]).toEqual({ type: 'assert', assertion: { type: 'url', contains: 'dashboard' } });
    expect(r.understood.map((u) => u.line)).toEqual([6, 7, 8, 9, 10, 12, 13]);
    expect(r.type).toBe('ui');
    const def = TestDefinition.parse(toTestDefinition(r));
    expect(def.name).toBe('good password');
    expect(def.steps).toHaveLength(7);
  });

  it('every line is either understood or reported with its number and the closest supported sentence', () => {
    const r = parsePlainLanguage('go to "/login"\nmake the coffee\nclick "Sign in"\nexpect the heading to look nice');
    expect(r.understood.map((u) => u.line)).toEqual([1, 3]);
    expect(r.not_understood.map((n) => n.line)).toEqual([2, 4]);
    for (const n of r.not_understood) {
      expect(n.reason).toBeTruthy();
      expect(n.closest).toBeTruthy();
    }
    expect(r.not_understood[1].closest).toMatch(/heading/);
    expect(r.confidence).toBeLessThan(0.6);
  });

  it('an API-only text is an api test', () => {
    const r = parsePlainLanguage('GET /api/items returns 200\nexpect response field "total" to exist');
    expect(r.type).toBe('api');
  });
});

describe('long input', () => {
  it('a run of whitespace reads as one space, in time that grows with the input (90,000 spaces held the server 6 s)', () => {
    const spaced = parseSentence(`click${' '.repeat(90_000)}"Sign in"${'\t '.repeat(20_000)}and press Enter`);
    expect(spaced).toEqual(parseSentence('click "Sign in" and press Enter'));
    const many = parsePlainLanguage(`fill ${' '.repeat(90_000)}x\n${'click "a", '.repeat(5_000)}`);
    expect(many.not_understood.length + many.understood.length).toBe(2);
  });
});
