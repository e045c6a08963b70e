import { describe, it, expect } from 'vitest';
import { Fingerprint } from '@svc/core/contracts/fingerprint';
import { rankCandidates, rankPage } from '@svc/core/healing/rank';
import { signInPage } from './pages.ts';

const THRESHOLD = 0.8;
const old = signInPage();
const button = old.find((f) => f.id === 'login-btn')!;

describe('rankCandidates on hand-made pages', () => {
  it('finds the unchanged element first, with high confidence', () => {
    const ranked = rankCandidates(button, old);
    expect(old[ranked[0].index].id).toBe('login-btn');
    expect(ranked[0].confidence).toBeGreaterThanOrEqual(THRESHOLD);
  });

  it('still finds a button whose id was renamed and which moved (text, role, neighbours)', () => {
    const page = signInPage({ buttonId: 'signin-submit', shift: 40 });
    const ranked = rankCandidates(button, page);
    expect(page[ranked[0].index].id).toBe('signin-submit');
    expect(ranked[0].confidence).toBeGreaterThan(ranked[1].confidence);
  });

  it('never auto-heals a removed element onto a neighbour', () => {
    const page = signInPage({ withButton: false });
    const ranked = rankCandidates(button, page);
    expect(ranked.length).toBeGreaterThan(0);
    expect(ranked[0].confidence).toBeLessThan(THRESHOLD);
  });

  it('does not auto-heal when two candidates are indistinguishable', () => {
    const page = [...old, { ...button }];
    const ranked = rankCandidates(button, page);
    expect(ranked[0].confidence).toBeLessThan(THRESHOLD);
  });

  it('returns every candidate best first with scores and confidences in [0, 1]', () => {
    const ranked = rankCandidates(button, old);
    expect(ranked.map((r) => r.index).sort((a, b) => a - b)).toEqual(old.map((_, i) => i));
    for (let i = 1; i < ranked.length; i++) expect(ranked[i - 1].score).toBeGreaterThanOrEqual(ranked[i].score);
    for (const r of ranked) {
      expect(r.score).toBeGreaterThanOrEqual(0);
      expect(r.score).toBeLessThanOrEqual(1);
      expect(r.confidence).toBeGreaterThanOrEqual(0);
      expect(r.confidence).toBeLessThanOrEqual(1);
    }
  });

  it('respects top', () => {
    expect(rankCandidates(button, old, { top: 3 })).toHaveLength(3);
  });
});

describe('rankPage on bad input', () => {
  it('an empty or malformed target gives an empty ranking with an error, never a heal', () => {
    for (const target of [{}, null, 'button', 42, [], { visible: true }, { tag: 17, classes: 'x' }]) {
      const r = rankPage(target, old);
      if (r.ranked.length) expect(r.ranked[0].confidence).toBeLessThan(THRESHOLD);
      else expect(r.error).toBeTruthy();
    }
    expect(rankPage({}, old).error).toMatch(/empty/);
    expect(rankPage('x', old).error).toMatch(/not a fingerprint/);
  });

  it('a page with no candidates gives an empty ranking', () => {
    expect(rankPage(button, []).ranked).toEqual([]);
  });

  it('skips malformed candidates but keeps indices pointing into the array as given', () => {
    const page: unknown[] = [null, 'junk', {}, ...old];
    const r = rankPage(button, page);
    expect(r.notes.join()).toMatch(/3 candidate/);
    expect(r.ranked.every((x) => x.index >= 3)).toBe(true);
    expect((page[r.ranked[0].index] as Fingerprint).id).toBe('login-btn');
  });

  it('handles lone surrogates, control characters and huge strings', () => {
    const evil = { tag: 'button', text: `Sign in\ud800\u0000${'x'.repeat(100_000)}`, id: '\udc00login-btn' };
    const r = rankPage(evil, [...old, evil]);
    expect(r.ranked.length).toBe(old.length + 1);
    expect(() => JSON.stringify(r)).not.toThrow();
  });

  it('caps pages at maxCandidates with a note, and ranks a 10,000-element page', () => {
    const big: Fingerprint[] = Array.from({ length: 10_000 }, (_, i) => ({
      tag: i % 3 ? 'div' : 'a', text: `Item ${i}`, classes: ['row', `c${i % 17}`], xpath: `/html/body/div[${i + 1}]`, box: { x: 0, y: i * 20, width: 100, height: 20 },
    }));
    big.push(button);
    const r = rankPage(button, big, { top: 10 });
    expect(big[r.ranked[0].index]).toBe(button);
    const capped = rankPage(button, big, { maxCandidates: 100 });
    expect(capped.notes.join()).toMatch(/only the first 100/);
    expect(capped.ranked.every((x) => x.index < 100)).toBe(true);
  });
});
