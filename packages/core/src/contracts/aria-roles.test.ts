import { describe, expect, it } from 'vitest';
import { rolesInSelector, unknownRoleMessage } from './aria-roles.ts';
import { TestDefinition } from './steps.ts';
import { issues } from './test-support.ts';

describe('ARIA roles in locators', () => {
  it('finds the role names of a selector string, after >> and as internal:role too', () => {
    expect(rolesInSelector('role=button[name="Save"]')).toEqual(['button']);
    expect(rolesInSelector('css=main >> role=Link >> internal:role=textbox[name=/e/i]')).toEqual(['Link', 'textbox']);
    expect(rolesInSelector('ul >> internal:has="li >> internal:role=listitem\\""')).toEqual(['listitem']);
    expect(rolesInSelector('#role=x, .a[data-role=button]')).toEqual([]);
  });

  it('knows roles in any case; names the role likely meant, common tag names included', () => {
    expect(unknownRoleMessage('BUTTON')).toBeUndefined();
    expect(unknownRoleMessage('{{role}}')).toBeUndefined();
    expect(unknownRoleMessage('buton')).toMatch(/^unknown ARIA role "buton"; did you mean "button"\?/);
    expect(unknownRoleMessage('image')).toMatch(/did you mean "img"\?/);
    expect(unknownRoleMessage('input')).toMatch(/did you mean "textbox"\?/);
    expect(unknownRoleMessage('widgetthing')).toMatch(/^unknown ARIA role "widgetthing" \(a role locator/);
  });

  it('a test with an unknown role is refused naming the step field; a known one passes', () => {
    const test = (selector: unknown) => ({ name: 't', type: 'ui', steps: [{ type: 'goto', url: '/' }, { type: 'click', selector }] });
    expect(issues(TestDefinition, test('role=buton[name="Save"]'))).toEqual([{ path: 'steps.1.selector', message: expect.stringMatching(/^unknown ARIA role "buton"; did you mean "button"\?/) }]);
    expect(issues(TestDefinition, test({ role: 'chekbox', name: 'I agree' }))).toEqual([{ path: 'steps.1.selector.role', message: expect.stringMatching(/did you mean "checkbox"\?/) }]);
    expect(TestDefinition.safeParse(test({ role: 'checkbox', name: 'I agree' })).success).toBe(true);
    expect(TestDefinition.safeParse(test('role=Button[name="Save"]')).success).toBe(true);
  });
});
