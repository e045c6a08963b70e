import { describe, expect, it } from 'vitest';
import { healedDefinition, mergeCaseHeals } from './apply-heals.ts';

const test = {
  steps: [
    { type: 'goto', url: '/login' },
    { type: 'fill', selector: '#email', value: 'a@b.c' },
    { type: 'extract', fields: { total: { selector: '.sum' } } },
  ],
  assertions: [{ type: 'visible', selector: '#done' }],
};

describe('healedDefinition', () => {
  it("writes each heal at its place: a step's selector, an extract field's, an assertion's (after the steps)", () => {
    const out = healedDefinition(test, [
      { index: 1, original: '#email', healed_locator: { test_id: 'login-email' } },
      { index: 2, field: 'total', original: '.sum', healed_locator: { css: '[data-total]' } },
      { index: 3, original: '#done', healed_locator: { role: 'status', name: 'Thanks' } },
    ]);
    expect(out).toMatchObject({ ok: true });
    if (!out.ok) return;
    expect(out.steps[1]).toEqual({ type: 'fill', selector: { test_id: 'login-email' }, value: 'a@b.c' });
    expect(out.steps[2]).toEqual({ type: 'extract', fields: { total: { selector: { css: '[data-total]' } } } });
    expect(out.assertions[0]).toEqual({ type: 'visible', selector: { role: 'status', name: 'Thanks' } });
    expect(out.changes.map((c) => [c.path, c.from])).toEqual([['steps.1.selector', '#email'], ['steps.2.fields.total.selector', '.sum'], ['assertions.0.selector', '#done']]);
    // The input is not touched.
    expect(test.steps[1].selector).toBe('#email');
  });

  it('applies heals in order: a later heal of the same place starts from the earlier one', () => {
    const out = healedDefinition(test, [
      { index: 1, original: '#email', healed_locator: '#mail' },
      { index: 1, original: '#mail', healed_locator: { test_id: 'login-email' } },
    ]);
    expect(out.ok && out.steps[1].selector).toEqual({ test_id: 'login-email' });
  });

  it('refuses what would undo a change or invent one: a changed test, a missing place, no locator, flows, nothing healed', () => {
    expect(healedDefinition(test, [{ index: 1, original: '#e-mail', healed_locator: '#x' }])).toEqual({ ok: false, reason: 'steps.1.selector is #email now, not #e-mail as in the run: the test changed since the run' });
    expect(healedDefinition(test, [{ index: 9, original: '#x', healed_locator: '#y' }])).toMatchObject({ ok: false, reason: expect.stringMatching(/no longer has/) });
    expect(healedDefinition(test, [{ index: 2, field: 'count', original: '.n', healed_locator: '#y' }])).toMatchObject({ ok: false, reason: expect.stringMatching(/steps\.2\.fields\.count\.selector, which the test no longer has/) });
    expect(healedDefinition(test, [{ index: 1, original: '#email', healed_locator: { nope: 1 } }])).toMatchObject({ ok: false, reason: expect.stringMatching(/no usable locator/) });
    expect(healedDefinition({ steps: [{ type: 'use', flow: 'sign-in' }], assertions: [] }, [{ index: 0, original: '#a', healed_locator: '#b' }])).toMatchObject({ ok: false, reason: expect.stringMatching(/uses flows/) });
    expect(healedDefinition(test, [])).toEqual({ ok: false, reason: 'the run healed nothing in this test' });
  });
});

describe('mergeCaseHeals', () => {
  const heal = (index: number, healed: unknown, original = '#email') => ({ index, original, healed_locator: healed });
  it('writes a heal that several cases made once, and keeps heals of different places', () => {
    const merged = mergeCaseHeals([
      { label: 'case a', heals: [heal(1, { test_id: 'login-email' })] },
      { label: 'case b', heals: [heal(1, { test_id: 'login-email' }), heal(2, { role: 'button', name: 'Go' }, '#go')] },
    ]);
    expect(merged).toEqual({ ok: true, heals: [heal(1, { test_id: 'login-email' }), heal(2, { role: 'button', name: 'Go' }, '#go')] });
  });
  it('refuses cases that healed one place differently, naming both', () => {
    const merged = mergeCaseHeals([
      { label: 'case a', heals: [heal(1, { test_id: 'login-email' })] },
      { label: 'case b', heals: [heal(1, { css: '#mail' })] },
    ]);
    expect(merged).toEqual({ ok: false, reason: expect.stringMatching(/^the cases healed #email differently: test_id=login-email in case a, .*#mail.* in case b/) });
  });
  it('keeps a field heal apart from its step\'s own locator', () => {
    const merged = mergeCaseHeals([{ label: 'the test', heals: [{ index: 3, field: 'price', original: '.p', healed_locator: { css: '.price' } }, { index: 3, original: '.card', healed_locator: { css: '.item' } }] }]);
    expect(merged.ok && merged.heals).toHaveLength(2);
  });
});
