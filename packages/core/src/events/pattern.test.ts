import { describe, expect, it } from 'vitest';
import { InvalidPatternError, matchesPattern, validatePattern } from './pattern.ts';

const ev = {
  source: 'svc.api',
  'detail-type': 'test.failed',
  detail: { tenant_id: 'org-1', payload: { count: 5, tags: ['a', 'b'], name: 'Login Flow' }, metadata: {} },
};

describe('event patterns (EventBridge semantics)', () => {
  it('matches exact values, any of a list, nested objects', () => {
    expect(matchesPattern({ 'detail-type': ['test.failed', 'test.created'] }, ev)).toBe(true);
    expect(matchesPattern({ 'detail-type': ['test.created'] }, ev)).toBe(false);
    expect(matchesPattern({ detail: { tenant_id: ['org-1'] } }, ev)).toBe(true);
    expect(matchesPattern({ detail: { tenant_id: ['org-2'] } }, ev)).toBe(false);
  });

  it('supports prefix, suffix, equals-ignore-case, wildcard, anything-but', () => {
    expect(matchesPattern({ source: [{ prefix: 'svc.' }] }, ev)).toBe(true);
    expect(matchesPattern({ source: [{ prefix: 'aws.' }] }, ev)).toBe(false);
    expect(matchesPattern({ source: [{ suffix: '.api' }] }, ev)).toBe(true);
    expect(matchesPattern({ detail: { payload: { name: [{ 'equals-ignore-case': 'login flow' }] } } }, ev)).toBe(true);
    expect(matchesPattern({ detail: { payload: { name: [{ wildcard: 'Login*' }] } } }, ev)).toBe(true);
    expect(matchesPattern({ detail: { payload: { name: [{ wildcard: 'Logout*' }] } } }, ev)).toBe(false);
    expect(matchesPattern({ source: [{ 'anything-but': ['svc.healer'] }] }, ev)).toBe(true);
    expect(matchesPattern({ source: [{ 'anything-but': 'svc.api' }] }, ev)).toBe(false);
    expect(matchesPattern({ source: [{ 'anything-but': { prefix: 'svc.' } }] }, ev)).toBe(false);
  });

  it('supports numeric ranges and array-valued fields', () => {
    expect(matchesPattern({ detail: { payload: { count: [{ numeric: ['>', 0, '<=', 5] }] } } }, ev)).toBe(true);
    expect(matchesPattern({ detail: { payload: { count: [{ numeric: ['>', 5] }] } } }, ev)).toBe(false);
    expect(matchesPattern({ detail: { payload: { tags: ['b'] } } }, ev)).toBe(true);
    expect(matchesPattern({ detail: { payload: { tags: ['c'] } } }, ev)).toBe(false);
  });

  it('supports exists, alone or beside values, and $or', () => {
    expect(matchesPattern({ detail: { metadata: { retry_for: [{ exists: false }] } } }, ev)).toBe(true);
    expect(matchesPattern({ detail: { metadata: { retry_for: [{ exists: true }] } } }, ev)).toBe(false);
    const retry = { ...ev, detail: { ...ev.detail, metadata: { retry_for: 'healer' } } };
    const p = { detail: { metadata: { retry_for: [{ exists: false }, 'healer'] } } };
    expect(matchesPattern(p, ev)).toBe(true);
    expect(matchesPattern(p, retry)).toBe(true);
    expect(matchesPattern({ detail: { metadata: { retry_for: [{ exists: false }, 'api'] } } }, retry)).toBe(false);
    expect(matchesPattern({ detail: { missing: { deeper: [{ exists: false }] } } }, ev)).toBe(true);
    expect(matchesPattern({ $or: [{ source: ['x'] }, { 'detail-type': ['test.failed'] }] }, ev)).toBe(true);
    expect(matchesPattern({ $or: [{ source: ['x'] }, { 'detail-type': ['y'] }] }, ev)).toBe(false);
  });

  it('rejects patterns EventBridge would refuse', () => {
    expect(() => validatePattern({ source: [] })).toThrow(InvalidPatternError);
    expect(() => validatePattern({ source: [{ regex: 'x' } as never] })).toThrow(/unknown matcher/);
    expect(() => validatePattern({ source: 'svc.api' as never })).toThrow(InvalidPatternError);
    expect(() => validatePattern({ $or: [{ source: ['a'] }] })).toThrow(/\$or/);
  });
});
