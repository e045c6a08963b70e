import { describe, it, expect } from 'vitest';
import { overlap, positionSimilarity, shapeSimilarity, sizeSimilarity, usableBox } from './geometry.ts';
import { parseXpath, pathLcs, pathSuffix } from './path-similarity.ts';
import { bigramDice, dice, jaccard, levenshtein, levenshteinRatio, overlapCoefficient, textSimilarity, weightedDice } from './string-similarity.ts';
import { identTokens, looksGenerated, maskDigits, normText, sanitize } from './text.ts';
import { parseUrl, urlSimilarity } from './url-similarity.ts';

describe('text hygiene', () => {
  it('sanitize makes strings well-formed, drops control characters and truncates', () => {
    expect(sanitize('a\ud800b')).toBe('a\ufffdb');
    expect(sanitize('a\u0000b')).toBe('a b');
    expect(sanitize('x'.repeat(5000))).toHaveLength(2000);
    const pair = '😀'.repeat(1500); // surrogate pairs are never split
    expect(sanitize(pair, 2001).isWellFormed()).toBe(true);
  });
  it('normText collapses whitespace (NBSP too) and lower-cases', () => {
    expect(normText('  Sign\u00a0 In\n')).toBe('sign in');
  });
  it('identTokens splits camelCase, punctuation and digits', () => {
    expect(identTokens('loginBtn2')).toEqual(['login', 'btn', '2']);
    expect(identTokens('global-search_submit')).toEqual(['global', 'search', 'submit']);
  });
  it('maskDigits and looksGenerated', () => {
    expect(maskDigits('English 6 199 000+ articles')).toBe('English # # #+ articles');
    expect(looksGenerated('ember1234')).toBe(true);
    expect(looksGenerated('css-1x9fz3')).toBe(true);
    expect(looksGenerated('id-4e703435b5dcf4893a5da9a491d94e65')).toBe(true);
    expect(looksGenerated('login-button')).toBe(false);
    expect(looksGenerated('nav-item5')).toBe(false);
  });
});

describe('string similarity', () => {
  it('levenshtein and its ratio', () => {
    expect(levenshtein('kitten', 'sitting')).toBe(3);
    expect(levenshteinRatio('abc', 'abc')).toBe(1);
    expect(levenshteinRatio('', '')).toBe(1);
    expect(levenshteinRatio('sign in', 'sign-in')).toBeCloseTo(6 / 7);
    expect(levenshteinRatio('a'.repeat(500), 'a'.repeat(500))).toBe(1); // long strings: bigram Dice
    expect(bigramDice('night', 'nacht')).toBeCloseTo(0.25);
  });
  it('set measures', () => {
    const a = new Set(['a', 'b', 'c']);
    const b = new Set(['b', 'c', 'd']);
    expect(jaccard(a, b)).toBeCloseTo(0.5);
    expect(dice(a, b)).toBeCloseTo(2 / 3);
    expect(overlapCoefficient(new Set(['a']), a)).toBe(1);
    expect(jaccard(new Set(), new Set())).toBe(1);
    expect(weightedDice(a, b, (t) => (t === 'b' ? 10 : 1))).toBeGreaterThan(dice(a, b));
  });
  it('textSimilarity tolerates typos and reordering', () => {
    expect(textSimilarity('log in now', 'now log in')).toBe(1);
    expect(textSimilarity('sign in', 'sign-in')).toBeGreaterThan(0.8);
    expect(textSimilarity('sign in', 'pricing')).toBeLessThan(0.5);
    expect(textSimilarity('', 'x')).toBe(0);
  });
});

describe('xpath similarity (by steps)', () => {
  it('parses the forms runners emit', () => {
    expect(parseXpath('/html[1]/body[1]/div[2]/a')).toEqual([
      { tag: 'html', index: 1 }, { tag: 'body', index: 1 }, { tag: 'div', index: 2 }, { tag: 'a', index: 1 },
    ]);
    expect(parseXpath(`//*[@id="main"]/ul[1]/li[3]`)[0]).toEqual({ tag: '#main', index: 1 });
    expect(parseXpath(`id("logo")/a[1]`)[0]).toEqual({ tag: '#logo', index: 1 });
    expect(parseXpath('/html/body/*[local-name() = "svg"][1]')[2]).toEqual({ tag: 'svg', index: 1 });
    expect(parseXpath('')).toEqual([]);
  });
  it('LCS of steps, with half credit for a moved sibling index', () => {
    const a = parseXpath('/html/body/div[1]/form/button[1]');
    expect(pathLcs(a, a)).toBe(1);
    expect(pathLcs(a, parseXpath('/html/body/div[1]/div[1]/form/button[1]'))).toBeCloseTo(5 / 6);
    expect(pathLcs(a, parseXpath('/html/body/div[1]/form/button[2]'))).toBeCloseTo(4.5 / 5);
    expect(pathLcs(a, parseXpath('/svg/g'))).toBe(0);
    expect(pathSuffix(a, parseXpath('/html/body/main/form/button[1]'))).toBeCloseTo(2 / 5);
  });
});

describe('URL similarity', () => {
  it('ignores scheme and www, weighs path over query', () => {
    const u = (s: string) => parseUrl(s);
    expect(urlSimilarity(u('http://www.bing.com/images?FORM=Z9LH'), u('https://bing.com/images?FORM=Z9LH'))).toBeGreaterThan(0.9);
    expect(urlSimilarity(u('/pricing'), u('/pricing?ref=nav'))).toBeGreaterThan(0.7);
    expect(urlSimilarity(u('/pricing'), u('/docs/api'))).toBeLessThanOrEqual(0.5);
    expect(urlSimilarity(u('::not a url::'), u('::not a url::'))).toBe(1);
  });
});

describe('geometry', () => {
  const a = { x: 0, y: 0, width: 100, height: 40 };
  it('position, size, overlap and shape', () => {
    expect(positionSimilarity(a, a)).toBe(1);
    expect(positionSimilarity(a, { ...a, x: 120 })).toBeCloseTo(0.5);
    expect(sizeSimilarity(a, { ...a, width: 50 })).toBeCloseTo(0.5);
    expect(overlap(a, { ...a, x: 50 })).toBeCloseTo(50 * 40 / (2 * 4000 - 2000));
    expect(overlap(a, { ...a, x: 500 })).toBe(0);
    expect(shapeSimilarity(a, { x: 0, y: 0, width: 200, height: 80 })).toBe(1);
    expect(usableBox({ x: NaN, y: 0, width: 1, height: 1 })).toBe(false);
  });
});
