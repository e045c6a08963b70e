import { describe, expect, it } from 'vitest';
import type { Step } from '../../contracts/steps.ts';
import { clickTarget, fieldTarget, itemsOf } from './grammar/locators.ts';
import { readableSteps } from './readable-locators.ts';

describe('readable locators for a passing grammar test', () => {
  const union = clickTarget('Sign in');
  const click = { type: 'click', selector: union } as Step;
  const fill = { type: 'fill', selector: fieldTarget('Email'), value: 'a@b.c' } as Step;

  it("replaces each union with the matched element's test id, role and name, or label", () => {
    expect(union).toContain(' >> internal:or=');
    const password = { type: 'fill', selector: fieldTarget('Password'), value: 'x' } as Step;
    const { steps, replaced } = readableSteps([fill, password, click], {
      0: { tag: 'input', role: 'textbox', accessibleName: 'Email', testId: 'email' },
      // A password field has no role: its label.
      1: { tag: 'input', type: 'password', accessibleName: 'Password' },
      2: { tag: 'button', role: 'button', accessibleName: 'Sign in', text: 'Sign in' },
    });
    expect(replaced).toBe(3);
    expect(steps).toEqual([
      { type: 'fill', selector: { test_id: 'email' }, value: 'a@b.c' },
      { type: 'fill', selector: { label: 'Password', exact: true }, value: 'x' },
      { type: 'click', selector: { role: 'button', name: 'Sign in', exact: true } },
    ]);
  });

  it('keeps what the author wrote, steps without a fingerprint, variables, counts, and elements with nothing readable', () => {
    const written = { type: 'click', selector: '#save' } as Step;
    const withVariable = { type: 'click', selector: clickTarget('{{item}}') } as Step;
    const count = { type: 'assert', assertion: { type: 'count', selector: itemsOf('todo list'), equals: 2 } } as Step;
    const bare = { type: 'click', selector: clickTarget('Go') } as Step;
    const fp = { tag: 'button', role: 'button', accessibleName: 'Save' };
    const { steps, replaced } = readableSteps([written, withVariable, count, bare, click], { 0: fp, 1: fp, 2: { tag: 'li', role: 'listitem' }, 3: { tag: 'div', xpath: '/html/body/div[3]' } });
    expect(replaced).toBe(0);
    expect(steps).toEqual([written, withVariable, count, bare, click]);
  });

  it('an assertion step about one element gets the readable locator too', () => {
    const visible = { type: 'assert', assertion: { type: 'visible', selector: clickTarget('Checkout') } } as Step;
    const { steps } = readableSteps([visible], { 0: { tag: 'a', role: 'link', accessibleName: 'Checkout' } });
    expect(steps).toEqual([{ type: 'assert', assertion: { type: 'visible', selector: { role: 'link', name: 'Checkout', exact: true } } }]);
  });
});
