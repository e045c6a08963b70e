import { describe, it, expect } from 'vitest';
import { localEmbedder, cosineSimilarity, embedLocally } from '@svc/core/healing/service/embedder';
import { failureClass, urlPathPattern } from '@svc/core/healing/service/failure-class';
import { failureText } from '@svc/core/healing/service/knowledge';
import { locatorMatchCount } from '@svc/core/healing/service/locator-match';
import { healingSettings } from '@svc/core/healing/service/settings';

const failure = (original: string, page: string, message: string) =>
  failureText({ original, urlPattern: urlPathPattern(page), failureClass: failureClass(message), failureText: message });

describe('local embedder', () => {
  it('returns deterministic, unit-length 1536-number vectors', async () => {
    const e = localEmbedder();
    const [a, b] = await e.embed(['fill: #email matched 0 elements', 'fill: #email matched 0 elements']);
    expect(a).toHaveLength(1536);
    expect(a).toEqual(b);
    expect(Math.abs(Math.hypot(...a) - 1)).toBeLessThan(1e-9);
    expect(embedLocally('').every((x) => x === 0)).toBe(true);
  });

  it('makes near-identical failures similar (> 0.7) and unrelated ones not', () => {
    const base = failure('#email', 'http://app.test/login', 'fill: #email matched 0 elements');
    const sameOtherRun = failure('#email', 'http://app.test/login?next=%2Fdashboard', 'fill: #email matched 0 elements');
    const renamed = failure('#email-input', 'http://app.test/login', 'fill: #email-input matched 0 elements');
    const otherPageOtherElement = failure('#checkout-total', 'http://app.test/cart/42', 'text: #checkout-total matched 3 elements');
    const sim = (x: string, y: string) => cosineSimilarity(embedLocally(x), embedLocally(y));
    expect(sim(base, sameOtherRun)).toBeGreaterThan(0.99);
    expect(sim(base, renamed)).toBeGreaterThan(0.7);
    expect(sim(base, otherPageOtherElement)).toBeLessThan(0.5);
    // Same page and failure, another element: related text, still below the 0.7 threshold.
    expect(sim(base, failure('#password', 'http://app.test/login', 'fill: #password matched 0 elements'))).toBeLessThan(0.7);
  });

  it('cosine similarity refuses vectors of different dimensions', () => {
    expect(() => cosineSimilarity([1, 0], [1, 0, 0])).toThrow(/dimensions differ/);
    expect(cosineSimilarity([0, 0], [1, 0])).toBe(0);
  });
});

describe('cache key parts', () => {
  it('normalises numeric, uuid and long hex path segments to :id', () => {
    expect(urlPathPattern('http://a.test/orders/42/items/0190c0de-1234-7abc-8def-0123456789ab?x=1#top')).toBe('/orders/:id/items/:id');
    expect(urlPathPattern('https://a.test/')).toBe('/');
    expect(urlPathPattern('/blob/3f8a9c0d1e2f3a4b5c6d')).toBe('/blob/:id');
    expect(urlPathPattern('/v2/users/me')).toBe('/v2/users/me');
  });

  it('classifies locator failures', () => {
    expect(failureClass('fill: #email matched 0 elements', { count: 0 })).toBe('not_found');
    expect(failureClass('click: button matched 3 elements')).toBe('not_unique');
    expect(failureClass('click: "#x" is not a valid selector (bad)')).toBe('invalid_selector');
    expect(failureClass('select: #a is not a <select> element')).toBe('not_actionable');
    expect(failureClass('something else entirely')).toBe('other');
  });
});

describe('locatorMatchCount', () => {
  const page = [
    { tag: 'input', id: 'user-email', testId: 'login-email', role: 'textbox', accessibleName: 'Email' },
    { tag: 'button', role: 'button', accessibleName: 'Sign in', text: 'Sign in' },
    { tag: 'button', role: 'button', accessibleName: 'Sign in with Google', text: 'Sign in with Google' },
    { tag: 'input', id: 'hidden-one', visible: false },
  ];
  it('counts visible fingerprints a locator would match, or says it cannot tell', () => {
    expect(locatorMatchCount({ test_id: 'login-email' }, page)).toBe(1);
    expect(locatorMatchCount('#user-email', page)).toBe(1);
    expect(locatorMatchCount({ css: '#hidden-one' }, page)).toBe(0);
    expect(locatorMatchCount({ role: 'button', name: 'Sign in', exact: true }, page)).toBe(1);
    expect(locatorMatchCount({ role: 'button', name: 'Sign in' }, page)).toBe(2);
    expect(locatorMatchCount({ css: 'form > button.primary' }, page)).toBeUndefined();
    expect(locatorMatchCount({ text: 'Sign' }, page)).toBeUndefined();
  });
});

describe('project healing settings', () => {
  it('reads overrides from config.healing and ignores out-of-range values with a reason', () => {
    expect(healingSettings({ healing: { threshold: 0.9, max_retries: 1 } }).settings).toMatchObject({ threshold: 0.9, max_retries: 1, enabled: true });
    const bad = healingSettings({ healing: { threshold: 0.2, max_retries: 99, enabled: 'yes' } });
    expect(bad.settings).toMatchObject({ threshold: 0.8, max_retries: 3, enabled: true });
    expect(bad.ignored).toHaveLength(3);
    expect(healingSettings(undefined).settings.cache_ttl_seconds).toBe(7 * 24 * 3600);
  });
});
