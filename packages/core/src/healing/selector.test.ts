import { describe, it, expect } from 'vitest';
import type { Fingerprint } from '../contracts/fingerprint.ts';
import { Locator } from '../contracts/steps.ts';
import { replacementSelector } from './selector.ts';

const button: Fingerprint = { tag: 'button', id: 'submit', text: 'Sign in', role: 'button', accessibleName: 'Sign in', classes: ['btn', 'btn-primary'], xpath: '/html/body/form/button[1]' };
const email: Fingerprint = { tag: 'input', id: 'email', name: 'email', ariaLabel: 'Email', xpath: '/html/body/form/input[1]' };

describe('replacementSelector', () => {
  it('prefers test id, then role + name', () => {
    expect(replacementSelector({ ...button, testId: 'login' }, [{ ...button, testId: 'login' }])?.locator).toEqual({ test_id: 'login' });
    const r = replacementSelector(button, [button, email])!;
    expect(r.locator).toEqual({ role: 'button', name: 'Sign in', exact: true });
    expect(r.unique).toBe(true);
  });
  it('falls through to the next strategy when one is ambiguous', () => {
    const twin = { ...button, id: 'other' };
    const r = replacementSelector(button, [button, twin])!;
    expect(r.strategy).toBe('id');
    expect(r.locator).toEqual({ css: '#submit' });
    expect(r.alternatives[0]).toMatchObject({ strategy: 'role', matches: 2, unique: false });
  });
  it('uses the label for fields and XPath as the last resort', () => {
    expect(replacementSelector(email, [email])?.locator).toEqual({ label: 'Email', exact: true });
    const bare: Fingerprint = { tag: 'div', id: 'ember1234', xpath: '/html/body/div[3]' };
    const r = replacementSelector(bare, [bare])!;
    expect(r.strategy).toBe('xpath');
    expect(r.locator).toEqual({ xpath: '/html/body/div[3]' });
  });
  it('reports not-unique when nothing is unique, and every locator is valid', () => {
    const r = replacementSelector(button, [button, button])!;
    expect(r.unique).toBe(false);
    for (const a of r.alternatives) expect(Locator.safeParse(a.locator).success).toBe(true);
    expect(replacementSelector({}, [])).toBeUndefined();
  });
});
