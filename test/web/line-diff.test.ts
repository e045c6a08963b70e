// The dashboard's line diff (packages/web/public/assets/line-diff.js), in Node: what a
// test revision's "Changes" shows is the lines removed and added, in order, with unchanged
// runs folded to a little context.
import { describe, expect, it } from 'vitest';
// @ts-expect-error a plain ES module of the dashboard, typed by JSDoc
import { foldUnchanged, lineDiff } from '../../packages/web/public/assets/line-diff.js';

type Line = { op: ' ' | '-' | '+'; text: string } | { op: '…'; skipped: number };
const render = (lines: Line[]) => lines.map((l) => (l.op === '…' ? `… ${l.skipped}` : `${l.op}${l.text}`));

describe('lineDiff', () => {
  it('keeps common lines and marks what was removed and added, in order', () => {
    expect(render(lineDiff(['a', 'b', 'c', 'd'], ['a', 'x', 'c', 'd', 'e']))).toEqual([' a', '-b', '+x', ' c', ' d', '+e']);
    expect(render(lineDiff([], ['a']))).toEqual(['+a']);
    expect(render(lineDiff(['a'], []))).toEqual(['-a']);
    expect(render(lineDiff(['same'], ['same']))).toEqual([' same']);
  });

  it('finds the longest common run when lines moved', () => {
    const diff = lineDiff(['goto', 'fill', 'click', 'assert'], ['goto', 'click', 'fill', 'assert']);
    expect(diff.filter((l: Line) => l.op === ' ').length).toBe(3);
    // Removing the '-' lines gives the old text back, removing the '+' lines the new one.
    expect(diff.filter((l: Line) => l.op !== '+').map((l: { text: string }) => l.text)).toEqual(['goto', 'fill', 'click', 'assert']);
    expect(diff.filter((l: Line) => l.op !== '-').map((l: { text: string }) => l.text)).toEqual(['goto', 'click', 'fill', 'assert']);
  });

  it('shows texts too large to compare line by line as replaced whole', () => {
    const before = Array.from({ length: 3000 }, (_, i) => `old ${i}`);
    const after = Array.from({ length: 3000 }, (_, i) => `new ${i}`);
    const diff = lineDiff(before, after);
    expect(diff).toHaveLength(6000);
    expect(diff.slice(0, 3000).every((l: Line) => l.op === '-')).toBe(true);
  });
});

describe('foldUnchanged', () => {
  it('keeps three lines of context around a change and folds the rest', () => {
    const before = Array.from({ length: 20 }, (_, i) => `line ${i}`);
    const after = [...before];
    after[10] = 'changed';
    expect(render(foldUnchanged(lineDiff(before, after)))).toEqual(['… 7', ' line 7', ' line 8', ' line 9', '-line 10', '+changed', ' line 11', ' line 12', ' line 13', '… 6']);
  });

  it('folds nothing when nothing is far from a change', () => {
    expect(render(foldUnchanged(lineDiff(['a', 'b'], ['a', 'c'])))).toEqual([' a', '-b', '+c']);
  });
});
