import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { headline, signature, slackMessage, type RunNotice } from './messages.ts';

const notice = (over: Partial<RunNotice> = {}): RunNotice => ({
  event: 'run_failed',
  organization_id: 'org',
  project: { id: 'p', name: 'shop' },
  run: { id: '01938a6e-0000-7000-8000-000000000000', status: 'completed', trigger: 'schedule', started_at: null, completed_at: null, total: 12, passed: 10, failed: 2, error: null },
  failed_tests: [{ test_id: 't1', name: 'checkout <!channel> & co', error: 'expected 200, got <500>' }],
  ...over,
});

describe('notification messages', () => {
  it('a headline says what happened, where and how much', () => {
    expect(headline(notice())).toBe('svc: shop failed — 2 of 12 tests failed (schedule run 01938a6e)');
    expect(headline(notice({ event: 'run_recovered', run: { ...notice().run, failed: 0, passed: 12 } }))).toBe('svc: shop passed again — 12 of 12 tests passed (schedule run 01938a6e)');
  });

  it('a test name cannot mention @channel or make a link in chat', () => {
    const blocks = JSON.stringify(slackMessage(notice()).blocks);
    expect(blocks).toContain('checkout &lt;!channel&gt; &amp; co');
    expect(blocks).toContain('expected 200, got &lt;500&gt;');
    expect(blocks).not.toContain('<!channel>');
    expect(blocks).toContain('…and 1 more');
  });

  it('signs the timestamp with the body, so a receiver can refuse a replay', () => {
    const at = new Date('2026-11-22T09:00:00Z');
    const sig = signature('whsec_test', '{"a":1}', at);
    expect(sig).toBe(`t=1795338000,v1=${createHmac('sha256', 'whsec_test').update('1795338000.{"a":1}').digest('hex')}`);
    expect(signature('whsec_test', '{"a":2}', at)).not.toBe(sig);
  });
});
