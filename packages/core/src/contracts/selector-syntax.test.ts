import { describe, expect, it } from 'vitest';
import { selectorSyntaxError } from './selector-syntax.ts';
import { Locator, TestDefinition } from './steps.ts';
import { INVALID_SELECTORS, VALID_SELECTORS } from '../../../../test/execution/ui/selector-syntax-examples.ts';
import { checkTarget, clickTarget, fieldTarget, itemsOf, ariaNamed, partOf } from '../intelligence/generation/grammar/locators.ts';

describe('selectorSyntaxError', () => {
  it.each(VALID_SELECTORS)('passes %s (Playwright accepts it)', (s) => {
    expect(selectorSyntaxError(s)).toBeUndefined();
  });

  it.each(INVALID_SELECTORS)('refuses %s (Playwright refuses it)', (s) => {
    expect(selectorSyntaxError(s)).toMatch(/^not a valid selector: /);
  });

  it('passes the selectors the plain-language grammar writes', () => {
    const written = [clickTarget('Sign in'), fieldTarget('Email'), fieldTarget('my todo'), checkTarget('Remember me'), itemsOf('Product catalogue'), ariaNamed('Sign in'), partOf('login', 'form')];
    for (const s of written) if (typeof s === 'string') expect(selectorSyntaxError(s), s).toBeUndefined();
  });

  it('says what is wrong and where', () => {
    expect(selectorSyntaxError('div[[')).toBe('not a valid selector: "[" at character 5 inside the attribute selector opened at character 4 (a literal [ is written \\[)');
    expect(selectorSyntaxError('//div[')).toBe('not a valid selector: "[" at character 6 in the XPath is never closed (a missing "]")');
    expect(selectorSyntaxError('[name="email]')).toBe('not a valid selector: unclosed " quote at character 7');
    expect(selectorSyntaxError('xpth=//a')).toBe('not a valid selector: unknown selector engine "xpth"; did you mean "xpath"? (a selector that starts with name= names an engine: css=, xpath=, text=, role=, id=, data-testid= …)');
    expect(selectorSyntaxError('#main >> button:has-text("Go"')).toBe('not a valid selector: "(" at character 16 is never closed (a missing ")") (in part 2 of the >> chain, "button:has-text(\\"Go\\"")');
  });

  it('leaves a selector with a {{variable}} to the run, when its value is known', () => {
    expect(selectorSyntaxError('#row-{{id}} >> :nth-child({{n}})')).toBeUndefined();
  });
});

describe('the Locator schema', () => {
  it('refuses a malformed string, css or xpath locator at the field, and passes structured ones', () => {
    const issue = (l: unknown) => {
      const r = Locator.safeParse(l);
      return r.success ? undefined : { path: r.error.issues[0]!.path, message: r.error.issues[0]!.message };
    };
    expect(issue('div[[')).toEqual({ path: [], message: expect.stringMatching(/^not a valid selector: "\["/) });
    expect(issue({ css: 'a >' })).toEqual({ path: ['css'], message: expect.stringContaining('ends with the combinator ">"') });
    expect(issue({ xpath: '//a[' })).toEqual({ path: ['xpath'], message: expect.stringContaining('in the XPath is never closed') });
    // A {css} locator is handed to Playwright as css=…, so >> in it is a chain, as at run time.
    expect(issue({ css: 'div >> span' })).toBeUndefined();
    expect(issue({ text: 'div[[' })).toBeUndefined();
    expect(issue({ label: '(' })).toBeUndefined();
  });

  it('names the step field in a test', () => {
    const r = TestDefinition.safeParse({ name: 't', type: 'ui', steps: [{ type: 'goto', url: '/' }, { type: 'click', selector: '#ok' }, { type: 'fill', selector: 'input[name="q"', value: 'x' }], assertions: [{ type: 'visible', selector: { xpath: '//h1)' } }] });
    expect(r.success).toBe(false);
    expect(r.error!.issues.map((i) => [i.path.join('.'), i.message])).toEqual([
      ['steps.2.selector', 'not a valid selector: "[" at character 6 is never closed (a missing "]")'],
      ['assertions.0.selector.xpath', 'not a valid selector: ")" at character 5 in the XPath closes nothing'],
    ]);
  });
});
