import { describe, expect, it } from 'vitest';
import { allowedOrigins, isAllowed, normaliseUrl, urlPattern } from '../../packages/core/src/intelligence/discovery/urls.ts';
import { unsafeLinkReason } from '../../packages/core/src/intelligence/discovery/safety.ts';
import { classifyPage } from '../../packages/core/src/intelligence/discovery/classify.ts';
import { elementsFromFingerprints, selectorString } from '../../packages/core/src/intelligence/discovery/elements.ts';
import { inferFlows } from '../../packages/core/src/intelligence/discovery/flows.ts';
import { Step } from '../../packages/core/src/contracts/steps.ts';
import type { PageSnapshot } from '../../packages/core/src/intelligence/discovery/types.ts';

const page = (over: Partial<PageSnapshot>): PageSnapshot => ({ url: 'http://a.test/', title: 'T', depth: 0, headings: [], links: [], forms: [], elements: [], lists: 0, listItems: 0, textLength: 0, ...over });

describe('URL normalisation and patterns', () => {
  it('sorts the query, drops tracking parameters and anchors, keeps hash routes', () => {
    expect(normaliseUrl('http://a.test/x?b=2&a=1&utm_source=mail#top')).toBe('http://a.test/x?a=1&b=2');
    expect(normaliseUrl('http://a.test/#/active')).toBe('http://a.test/#/active');
    expect(normaliseUrl('http://a.test/#/')).toBe('http://a.test/');
    expect(normaliseUrl('#!/items', 'http://a.test/app')).toBe('http://a.test/app#!/items');
    expect(normaliseUrl('mailto:x@y.z')).toBeUndefined();
    expect(normaliseUrl('http://[bad')).toBeUndefined();
  });

  it('puts calendars, pagination and ids into one family', () => {
    expect(urlPattern('http://a.test/cal?month=2024-05')).toBe(urlPattern('http://a.test/cal?month=2024-06'));
    expect(urlPattern('http://a.test/items?page=2')).toBe('http://a.test/items?page=*');
    expect(urlPattern('http://a.test/events/2024-05-01/7')).toBe('http://a.test/events/{date}/{n}');
    expect(urlPattern('http://a.test/users/0190c2a1-0000-7000-8000-000000000001')).toBe('http://a.test/users/{uuid}');
    expect(urlPattern('http://a.test/about')).not.toBe(urlPattern('http://a.test/contact'));
  });

  it('allows the start origin and the configured hosts only', () => {
    const origins = allowedOrigins('http://127.0.0.1:3000/app', ['api.example.com', 'https://cdn.example.com']);
    expect(isAllowed('http://127.0.0.1:3000/other', origins)).toBe(true);
    expect(isAllowed('http://127.0.0.1:3001/', origins)).toBe(false);
    expect(isAllowed('https://api.example.com/x', origins)).toBe(true);
    expect(isAllowed('http://cdn.example.com/x', origins)).toBe(false);
    expect(isAllowed('https://evil.example/', origins)).toBe(false);
  });
});

describe('link safety', () => {
  it('never follows logout, destructive or download links', () => {
    expect(unsafeLinkReason({ href: '/logout' })).toBe('logout_or_destructive');
    expect(unsafeLinkReason({ href: '/account', text: 'Sign out' })).toBe('logout_or_destructive');
    expect(unsafeLinkReason({ href: '/items/3/delete' })).toBe('logout_or_destructive');
    expect(unsafeLinkReason({ href: '/x?action=destroy' })).toBe('logout_or_destructive');
    expect(unsafeLinkReason({ href: '/t', text: 'Remove item' })).toBe('logout_or_destructive');
    expect(unsafeLinkReason({ href: '/files/report.pdf' })).toBe('download');
    expect(unsafeLinkReason({ href: '/export', download: true })).toBe('download');
    expect(unsafeLinkReason({ href: 'javascript:void(0)' })).toBe('not_http');
    expect(unsafeLinkReason({ href: '/products?page=2', text: 'Next' })).toBeUndefined();
    expect(unsafeLinkReason({ href: '/removals-company' })).toBeUndefined();
  });
});

describe('classification, elements and flows', () => {
  it('classifies pages from their content', () => {
    expect(classifyPage(page({ forms: [{ method: 'post', action: '/login', fields: [{ tag: 'input', type: 'email' }, { tag: 'input', type: 'password' }] }], url: 'http://a.test/signin', depth: 1 }))).toBe('auth');
    expect(classifyPage(page({ forms: [{ method: 'post', action: '/c', fields: [{ tag: 'input', type: 'text' }, { tag: 'textarea', type: 'textarea' }] }], url: 'http://a.test/contact', depth: 1 }))).toBe('form');
    expect(classifyPage(page({ json: true, url: 'http://a.test/posts', depth: 1 }))).toBe('api');
    expect(classifyPage(page({ status: 404, url: 'http://a.test/missing', depth: 1 }))).toBe('error');
    expect(classifyPage(page({}))).toBe('landing');
  });

  it('picks selectors by the healing preference and scores their stability', () => {
    const fps = [
      { tag: 'button', role: 'button', accessibleName: 'Save', text: 'Save', visible: true },
      { tag: 'a', role: 'link', accessibleName: 'Home', href: '/', testId: 'home-link', visible: true },
      { tag: 'div', text: 'not interactive', visible: true },
      { tag: 'input', type: 'hidden', name: 'csrf' },
    ];
    const elements = elementsFromFingerprints(fps);
    expect(elements.map((e) => [e.selector, e.category, e.strategy])).toEqual([
      ['role=button[name="Save"s]', 'button', 'role'],
      ['[data-testid="home-link"]', 'link', 'testId'],
    ]);
    expect(selectorString({ label: 'Email', exact: true })).toBe('internal:label="Email"s');
  });

  it('infers login, form, CRUD and navigation flows whose steps are valid test steps', () => {
    const pages = [
      page({ url: 'http://a.test/', title: 'Home', lists: 1, forms: [{ method: 'none', action: '', standalone: true, fields: [{ tag: 'input', type: 'text', id: 'new-todo', placeholder: 'What needs to be done?' }] }] }),
      page({ url: 'http://a.test/login', title: 'Login', depth: 1, forms: [{ method: 'post', action: 'http://a.test/login', submitText: 'Sign in', fields: [{ tag: 'input', type: 'email', name: 'email', label: 'Email' }, { tag: 'input', type: 'password', name: 'password', label: 'Password' }] }] }),
      page({ url: 'http://a.test/contact', title: 'Contact', depth: 1, forms: [{ method: 'post', action: 'http://a.test/contact', submitText: 'Send', fields: [{ tag: 'input', type: 'text', name: 'name', label: 'Name' }, { tag: 'select', type: 'select', name: 'topic', options: ['', 'sales'] }] }] }),
    ];
    const flows = inferFlows(pages, { username: 'me@a.test' });
    expect(flows.map((f) => f.flow_type)).toEqual(['crud', 'authentication', 'form', 'navigation']);
    const login = flows[1];
    expect(login.steps).toEqual([
      { type: 'goto', url: 'http://a.test/login' },
      { type: 'fill', selector: { label: 'Email', exact: true }, value: 'me@a.test' },
      { type: 'fill', selector: { label: 'Password', exact: true }, value: '{{secrets.PASSWORD}}' },
      { type: 'click', selector: { role: 'button', name: 'Sign in', exact: true } },
      { type: 'assert', assertion: { type: 'hidden', selector: { label: 'Password', exact: true } }, name: 'signed in: the password field is gone' },
      // Where it lands is unknown, but not on the sign-in page: a wrong password's error page without the form stays there.
      { type: 'assert', assertion: { type: 'url', matches: '^(?![a-z][a-z0-9+.-]*://[^/?#]*/login/?(?:[?#]|$))' }, name: 'signed in: it left /login' },
    ]);
    const left = new RegExp((login.steps.at(-1) as { assertion: { matches: string } }).assertion.matches);
    expect(['http://a.test/login', 'http://a.test/login?error=1', 'http://a.test/dashboard', 'http://a.test/login-help'].map((u) => left.test(u))).toEqual([false, false, true, true]);
    expect(flows[2].steps.at(-1)?.type).toBe('click'); // a form discovery never submitted: no outcome to check (review flags it)
    expect(flows[2].steps).toContainEqual({ type: 'select', selector: { css: 'select[name="topic"]' }, value: 'sales' });
    for (const flow of flows) for (const step of flow.steps) expect(Step.safeParse(step).success).toBe(true);
  });

  it("a sign-in flow on the page where discovery signed in also checks that it lands where discovery did", () => {
    const login = page({ url: 'http://a.test/login', title: 'Login', depth: 1, forms: [{ method: 'post', action: '', submitText: 'Sign in', fields: [{ tag: 'input', type: 'email', id: 'email' }, { tag: 'input', type: 'password', id: 'pw' }] }] });
    const other = page({ url: 'http://a.test/admin/login', title: 'Admin', depth: 1, forms: [{ method: 'post', action: '/admin/session', submitText: 'Go', fields: [{ tag: 'input', type: 'text', name: 'user' }, { tag: 'input', type: 'password', name: 'secret' }] }] });
    const [here, elsewhere] = inferFlows([login, other], { signedIn: { loginUrl: 'http://a.test/login', landedUrl: 'http://a.test/dashboard?tab=1' } });
    expect(here.steps.slice(-2)).toEqual([
      { type: 'assert', assertion: { type: 'hidden', selector: { css: '#pw' } }, name: 'signed in: the password field is gone' },
      { type: 'assert', assertion: { type: 'url', contains: '/dashboard' }, name: "lands on /dashboard, as discovery's sign-in did" },
    ]);
    expect(elsewhere.steps.slice(-2)).toEqual([
      { type: 'assert', assertion: { type: 'hidden', selector: { css: 'input[name="secret"]' } }, name: 'signed in: the password field is gone' },
      { type: 'assert', assertion: { type: 'url', matches: '^(?![a-z][a-z0-9+.-]*://[^/?#]*/admin/login/?(?:[?#]|$))' }, name: 'signed in: it left /admin/login' },
    ]);
  });
});
