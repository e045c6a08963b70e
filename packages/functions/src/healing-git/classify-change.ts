import type { Hunk } from './diff.ts';
import { tokenPattern, type SelectorToken } from './selector-token.ts';

/**
 * Rename or removal, from the hunks of the commit that removed the token. A rename shows
 * the removed line coming back in the same hunk with only the token's value changed (a
 * clean replacement); a looser match keeps the same attribute on a similar line. No such
 * line means the element went away.
 */
export interface ChangeVerdict {
  kind: 'rename' | 'removal';
  newToken?: string;
  confidence: number;
  file: string;
  removed: string;
  added?: string;
  notes: string[];
}

interface Candidate {
  newToken: string;
  score: number;
  clean: boolean;
  hunk: Hunk;
  removed: string;
  added: string;
}

const valueRe = (attr: string) => new RegExp(`(?:^|[\\s{(,])${attr.replace(/[-]/g, '\\-')}\\s*=\\s*\\{?\\s*["'\`]([^"'\`]*)["'\`]`, 'i');

function bigrams(s: string): Map<string, number> {
  const m = new Map<string, number>();
  const t = s.replace(/\s+/g, ' ').trim();
  for (let i = 0; i < t.length - 1; i++) m.set(t.slice(i, i + 2), (m.get(t.slice(i, i + 2)) ?? 0) + 1);
  return m;
}

/** Dice coefficient on character bigrams. */
export function similarity(a: string, b: string): number {
  const x = bigrams(a);
  const y = bigrams(b);
  let inter = 0;
  let total = 0;
  for (const [k, n] of x) {
    inter += Math.min(n, y.get(k) ?? 0);
    total += n;
  }
  for (const n of y.values()) total += n;
  return total === 0 ? (a.trim() === b.trim() ? 1 : 0) : (2 * inter) / total;
}

function validToken(t: SelectorToken, value: string): boolean {
  if (!value || value === t.token) return false;
  if (t.kind === 'text') return !/[<>{}]/.test(value) && value.trim().length > 0 && value.length <= 200;
  return /^[\w-]+$/.test(value);
}

/** Same line with only the token swapped: prefix and suffix around it unchanged. */
function cleanReplacement(t: SelectorToken, removed: string, added: string): string | undefined {
  const re = tokenPattern(t);
  const r = removed.trim();
  const a = added.trim();
  const m = re.exec(r);
  if (!m) return undefined;
  const prefix = r.slice(0, m.index);
  const suffix = r.slice(m.index + t.token.length);
  if (!a.startsWith(prefix) || !a.endsWith(suffix) || a.length <= prefix.length + suffix.length) return undefined;
  const value = a.slice(prefix.length, a.length - suffix.length);
  return validToken(t, value) ? value : undefined;
}

/** The new value of the same attribute (or the class that appeared) on a similar line. */
function looseReplacement(t: SelectorToken, removed: string, added: string): string | undefined {
  if (tokenPattern(t).test(added)) return undefined;
  if (t.kind === 'class') {
    const cls = (s: string) => (valueRe('class(?:Name)?').exec(s)?.[1] ?? '').split(/\s+/).filter(Boolean);
    const before = new Set(cls(removed));
    const appeared = cls(added).filter((c) => !before.has(c));
    return appeared.length === 1 && validToken(t, appeared[0]) ? appeared[0] : undefined;
  }
  if (t.kind === 'text') {
    const inner = (s: string) => />\s*([^<>{}]+?)\s*</.exec(s)?.[1];
    const v = inner(added);
    return v && inner(removed) !== undefined && validToken(t, v) ? v : undefined;
  }
  const attr = t.attribute ?? (t.kind === 'id' ? 'id' : undefined);
  if (!attr) return undefined;
  const v = valueRe(attr).exec(added)?.[1];
  return v && valueRe(attr).test(removed) && validToken(t, v) ? v : undefined;
}

export function classifyChange(t: SelectorToken, hunks: Hunk[]): ChangeVerdict | null {
  const re = tokenPattern(t);
  const touched = hunks.filter((h) => h.removed.some((l) => re.test(l.text)));
  if (!touched.length) return null;
  const candidates: Candidate[] = [];
  for (const h of touched) {
    for (const r of h.removed.filter((l) => re.test(l.text))) {
      for (const a of h.added) {
        const clean = cleanReplacement(t, r.text, a.text);
        if (clean) {
          candidates.push({ newToken: clean, score: 1, clean: true, hunk: h, removed: r.text, added: a.text });
          continue;
        }
        const loose = looseReplacement(t, r.text, a.text);
        if (loose) {
          const sim = similarity(r.text.replace(t.token, ''), a.text.replace(loose, ''));
          if (sim >= 0.5) candidates.push({ newToken: loose, score: sim, clean: false, hunk: h, removed: r.text, added: a.text });
        }
      }
    }
  }
  const first = touched[0];
  const firstRemoved = first.removed.find((l) => re.test(l.text))!.text;
  if (!candidates.length) {
    const pureDeletion = touched.every((h) => h.added.length === 0);
    return {
      kind: 'removal', confidence: pureDeletion ? 0.9 : 0.75, file: first.file, removed: firstRemoved.trim(),
      notes: [pureDeletion ? 'the lines holding the token were deleted with nothing added in their place' : 'the lines holding the token changed, but no added line carries a replacement value'],
    };
  }
  candidates.sort((a, b) => Number(b.clean) - Number(a.clean) || b.score - a.score);
  const best = candidates[0];
  const notes: string[] = [];
  let confidence = best.clean ? (best.hunk.removed.length === 1 && best.hunk.added.length === 1 ? 0.95 : 0.88) : Math.min(0.8, 0.45 + 0.35 * best.score);
  notes.push(best.clean ? 'the same line came back with only the value changed' : 'a similar line in the same hunk carries a different value for the same attribute');
  const others = new Set(candidates.filter((c) => c.clean === best.clean).map((c) => c.newToken));
  if (others.size > 1) {
    confidence -= 0.15;
    notes.push(`ambiguous: the hunk offers ${others.size} replacement values (${[...others].slice(0, 5).join(', ')})`);
  }
  return { kind: 'rename', newToken: best.newToken, confidence, file: best.hunk.file, removed: best.removed.trim(), added: best.added.trim(), notes };
}
