import { describe, it, expect } from 'vitest';
import { parsePlainLanguage } from '../../packages/core/src/intelligence/generation/plain-language.ts';
import { TestDefinition } from '../../packages/core/src/contracts/steps.ts';

/** Network mocks in plain language: a mocking verb makes a canned answer, not a request. */
describe('mock sentences', () => {
  const steps = (text: string) => {
    const r = parsePlainLanguage(text);
    expect(r.not_understood).toEqual([]);
    return r.steps;
  };

  it('a status, a JSON answer, a network error and a timeout', () => {
    expect(steps('mock GET "/api/items" to return 503')).toEqual([{ type: 'mock', url: '/api/items', method: 'GET', status: 503 }]);
    expect(steps('Given the API /api/items is stubbed with {"items": [], "total": 0}')).toEqual([{ type: 'mock', url: '/api/items', json: { items: [], total: 0 } }]);
    expect(steps('mock POST /api/orders as a network error')).toEqual([{ type: 'mock', url: '/api/orders', method: 'POST', abort: 'failed' }]);
    expect(steps('the POST /api/orders endpoint is mocked to return 201')).toEqual([{ type: 'mock', url: '/api/orders', method: 'POST', status: 201 }]);
    expect(steps('fake "**/api/slow" to time out')).toEqual([{ type: 'mock', url: '**/api/slow', abort: 'timedout' }]);
  });

  it('without a mocking verb it is still a request; a bad JSON answer is reported', () => {
    expect(steps('GET /api/items returns 200')[0]).toMatchObject({ type: 'request', method: 'GET' });
    const r = parsePlainLanguage('stub /api/items with {"items": [1,]}');
    expect(r.not_understood[0]).toMatchObject({ reason: expect.stringMatching(/^the mocked answer is not valid JSON/) });
  });

  it('a story with a mock makes a valid test', () => {
    const r = parsePlainLanguage('mock "/api/items" to return 500\ngo to "/catalog"\nI should see "Could not load items"');
    expect(r.not_understood).toEqual([]);
    expect(TestDefinition.safeParse({ name: 't', type: r.type, steps: r.steps }).success).toBe(true);
    expect(r.type).toBe('ui');
  });
});
