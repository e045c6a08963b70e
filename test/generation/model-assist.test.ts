/**
 * The pure parts of generation with a model (core's model-assist.ts): how a model's answer
 * is validated by the grammar, what context goes into the prompt, and how big a story has
 * to be for a more capable model. The model calls themselves are in model-generation.test.ts.
 */
import { describe, it, expect } from 'vitest';
import { parsePlainLanguage } from '../../packages/core/src/intelligence/generation/plain-language.ts';
import { applyRewrites, compactElements, lineOfStep, pageUrlFor, rewritePrompt, storyComplexity, MODEL_CERTAINTY_FACTOR } from '../../packages/core/src/intelligence/generation/model-assist.ts';

const TEXT = 'go to "/login"\nsign in like the demo user does\nexpect heading "Welcome"';

describe('applyRewrites', () => {
  it('reads a fenced JSON answer, inserts the rewritten steps at the line and lowers its certainty', () => {
    const parsed = parsePlainLanguage(TEXT);
    const answer = 'Here you go:\n```json\n{"rewrites":[{"line":2,"sentences":["fill \\"Email\\" with \\"a@b.c\\"","click \\"Sign in\\""]}]}\n```';
    const { result, rewritten, refused } = applyRewrites(parsed, answer);
    expect(rewritten).toEqual([2]);
    expect(refused).toEqual([]);
    expect(result.not_understood).toEqual([]);
    expect(result.steps.map((s) => s.type)).toEqual(['goto', 'fill', 'click', 'assert']);
    const line2 = result.understood.find((u) => u.line === 2)!;
    expect(line2).toMatchObject({ source: 'model', rewrite: ['fill "Email" with "a@b.c"', 'click "Sign in"'], text: 'sign in like the demo user does' });
    expect(line2.certainty).toBeLessThanOrEqual(MODEL_CERTAINTY_FACTOR);
    // All lines read now, but the model's line weighs less than a grammar-only text would.
    expect(result.confidence).toBeGreaterThan(parsed.confidence);
    expect(result.confidence).toBeLessThan(parsePlainLanguage('go to "/login"\nfill "Email" with "a@b.c"\nexpect heading "Welcome"').confidence);
  });

  it('a line with one unreadable sentence stays not understood, with the reason appended', () => {
    const parsed = parsePlainLanguage(TEXT);
    const { result, refused } = applyRewrites(parsed, JSON.stringify({ rewrites: [{ line: 2, sentences: ['click "Sign in"', 'page.click("#submit")'] }] }));
    expect(result.steps).toEqual(parsed.steps);
    expect(refused).toEqual([{ line: 2, reason: expect.stringMatching(/^the model's rewrite "page.click\("#submit"\)" is not a supported sentence either/) }]);
    expect(result.not_understood[0].reason).toMatch(/^no supported sentence pattern matches; the model's rewrite/);
  });

  it('a sentence with a line break, an empty list, or a missing line is refused', () => {
    const parsed = parsePlainLanguage('go to "/login"\nfoo bar baz\nqux quux');
    const { refused } = applyRewrites(parsed, JSON.stringify({ rewrites: [{ line: 2, sentences: ['click "A"\nclick "B"'] }, { line: 3, sentences: [] }] }));
    expect(refused).toEqual([
      { line: 2, reason: expect.stringMatching(/spans several lines/) },
      { line: 3, reason: 'the model found no sentence of the grammar for it' },
    ]);
    expect(applyRewrites(parsed, '{"rewrites": []}').refused.map((r) => r.reason)).toEqual(['the model gave no rewrite', 'the model gave no rewrite']);
    expect(applyRewrites(parsed, '{"rewrites": "nope"}').refused[0].reason).toBe("the model's answer was not the JSON object asked for");
  });

  it('absolute URLs: the base origin and origins in the text are allowed, others refused', () => {
    const parsed = parsePlainLanguage('foo the bar\nthen go somewhere https://docs.example.org mentions');
    const ok = applyRewrites(parsed, JSON.stringify({ rewrites: [{ line: 1, sentences: ['go to "http://127.0.0.1:9/x"'] }, { line: 2, sentences: ['go to "https://docs.example.org/a"'] }] }), ['http://127.0.0.1:9']);
    expect(ok.rewritten).toEqual([1, 2]);
    const bad = applyRewrites(parsed, JSON.stringify({ rewrites: [{ line: 1, sentences: ['GET https://evil.example/api returns 200'] }] }), ['http://127.0.0.1:9']);
    expect(bad.refused[0].reason).toMatch(/points at https:\/\/evil.example/);
  });
});

describe('prompt context', () => {
  it('compact elements: role and name, label, placeholder, test id; no values, no hidden elements, deduplicated', () => {
    const els = compactElements([
      { tag: 'input', type: 'password', accessibleName: 'Password', value: 'hunter2', visible: true },
      { tag: 'input', type: 'email', role: 'textbox', accessibleName: 'Email', placeholder: 'you@example.com', testId: 'login-email' },
      { tag: 'button', role: 'button', accessibleName: 'Sign in' },
      { tag: 'button', role: 'button', accessibleName: 'Sign in' },
      { tag: 'button', role: 'button', accessibleName: 'Hidden', visible: false },
      { tag: 'p', role: 'paragraph', text: 'Some prose' },
      { tag: 'div', text: 'Double-click me', testId: 'dbl-target' },
      { tag: 'input', type: 'hidden', name: 'csrf', value: 'secret-token' },
    ]);
    expect(els).toEqual([
      { tag: 'input', name: 'Password', type: 'password' },
      { role: 'textbox', name: 'Email', placeholder: 'you@example.com', type: 'email', testId: 'login-email' },
      { role: 'button', name: 'Sign in' },
      { tag: 'div', text: 'Double-click me', testId: 'dbl-target' },
    ]);
    expect(JSON.stringify(els)).not.toMatch(/hunter2|secret-token/);
  });

  it('the prompt lists page, elements, understood lines and the lines to rewrite', () => {
    const parsed = parsePlainLanguage(TEXT);
    const prompt = rewritePrompt(parsed, { url: 'http://app/login', elements: [{ tag: 'button', role: 'button', accessibleName: 'Sign in' }] });
    expect(prompt.split('\n')).toEqual([
      'Page under test: http://app/login',
      'Interactive elements on that page (one JSON object per line):',
      '- {"role":"button","name":"Sign in"}',
      'Lines already understood (line: text):',
      '1: go to "/login"',
      '3: expect heading "Welcome"',
      'Lines to rewrite (line: text):',
      '2: sign in like the demo user does',
    ]);
  });

  it('the page: the last goto before the first unread line, resolved against the base URL', () => {
    expect(pageUrlFor(parsePlainLanguage(TEXT), 'http://app:1')).toBe('http://app:1/login');
    expect(pageUrlFor(parsePlainLanguage('do the thing'), 'http://app:1/')).toBe('http://app:1/');
    expect(pageUrlFor(parsePlainLanguage('do the thing'))).toBeUndefined();
    expect(pageUrlFor(parsePlainLanguage('go to "/a"\nclick "X"\ngo to "/b"\nclick "Y"'), 'http://app:1', 2)).toBe('http://app:1/a');
  });

  it('lineOfStep maps a step index back to its line', () => {
    const parsed = parsePlainLanguage('go to "/login"\nlog in as "a@b.c" with password "pw"\nexpect heading "Welcome"');
    const last = parsed.steps.length - 1;
    expect(lineOfStep(parsed, 0)?.line).toBe(1);
    expect(lineOfStep(parsed, 1)?.line).toBe(2);
    expect(lineOfStep(parsed, last)?.line).toBe(3);
    expect(lineOfStep(parsed, last + 1)).toBeUndefined();
  });
});

describe('storyComplexity', () => {
  it('MODERATE for a story, COMPLEX for a long one (over 40 lines or 4000 characters)', () => {
    expect(storyComplexity(parsePlainLanguage(TEXT))).toBe('MODERATE');
    expect(storyComplexity(parsePlainLanguage(Array.from({ length: 41 }, (_, i) => `click "Item ${i}"`).join('\n')))).toBe('COMPLEX');
    expect(storyComplexity(parsePlainLanguage(`do ${'very '.repeat(1100)}many things`))).toBe('COMPLEX');
  });
});
