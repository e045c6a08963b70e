/**
 * What the engine knows about the page as a whole: how common each token is among the
 * candidates (document frequency). A shared rare token ("checkout") is strong evidence;
 * a shared token every element has ("nav", "item") is not. Computed once per page, which
 * also links the candidates' visual groups (groups.ts).
 */
import { linkGroups } from './groups.ts';
import type { Prepared } from './prepare.ts';

export interface PageContext {
  /** Inverse document frequency of a token on this page; unseen tokens get the maximum. */
  idf(token: string): number;
}

export function pageContext(candidates: readonly Prepared[]): PageContext {
  linkGroups(candidates);
  const df = new Map<string, number>();
  for (const c of candidates) for (const t of c.contextTokens) df.set(t, (df.get(t) ?? 0) + 1);
  const n = Math.max(1, candidates.length);
  const cache = new Map<string, number>();
  return {
    idf(token: string): number {
      let v = cache.get(token);
      if (v === undefined) {
        v = Math.log(1 + n / (1 + (df.get(token) ?? 0)));
        cache.set(token, v);
      }
      return v;
    },
  };
}

/** A context with every token equally informative (for scoring without a page). */
export const FLAT_CONTEXT: PageContext = { idf: () => 1 };
