/**
 * URL similarity that knows the parts of a URL: host (scheme and `www.` ignored), path
 * segments (compared in order), query parameters (keys matter more than values, which
 * often carry tracking or session ids) and fragment.
 */
import { dice, levenshteinRatio } from './string-similarity.ts';

export interface UrlParts {
  raw: string;
  host: string;
  path: string[];
  queryKeys: Set<string>;
  queryPairs: Set<string>;
  hash: string;
}

export function parseUrl(href: string): UrlParts {
  const raw = href.trim();
  let url: URL | undefined;
  try {
    url = new URL(raw, 'http://relative.invalid/');
  } catch {
    url = undefined;
  }
  if (!url) return { raw, host: '', path: raw ? [raw.toLowerCase()] : [], queryKeys: new Set(), queryPairs: new Set(), hash: '' };
  const host = url.host === 'relative.invalid' ? '' : url.host.toLowerCase().replace(/^www\./, '');
  const path = url.pathname
    .split('/')
    .filter(Boolean)
    .map((s) => safeDecode(s).toLowerCase());
  const queryKeys = new Set<string>();
  const queryPairs = new Set<string>();
  for (const [k, v] of url.searchParams) {
    queryKeys.add(k);
    queryPairs.add(`${k}=${v}`);
  }
  return { raw, host, path, queryKeys, queryPairs, hash: url.hash.slice(1) };
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** Ordered similarity of two path-segment lists (LCS over segments, fuzzy for one-segment edits). */
function pathSimilarity(a: string[], b: string[]): number {
  if (!a.length && !b.length) return 1;
  if (!a.length || !b.length) return 0;
  const n = b.length;
  const dp: number[][] = Array.from({ length: a.length + 1 }, () => new Array<number>(n + 1).fill(0));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= n; j++) {
      const s = a[i - 1] === b[j - 1] ? 1 : levenshteinRatio(a[i - 1], b[j - 1]) >= 0.8 ? 0.7 : 0;
      dp[i][j] = Math.max(dp[i - 1][j], dp[i][j - 1], s ? dp[i - 1][j - 1] + s : 0);
    }
  }
  return dp[a.length][n] / Math.max(a.length, n);
}

/** 1 for the same URL; partial credit for the same host and path with other parameters. */
export function urlSimilarity(a: UrlParts, b: UrlParts): number {
  if (a.raw === b.raw) return 1;
  const host = a.host === b.host ? 1 : !a.host || !b.host ? 0.7 : 0;
  const path = pathSimilarity(a.path.slice(0, 32), b.path.slice(0, 32));
  const query = !a.queryKeys.size && !b.queryKeys.size ? 1 : 0.7 * dice(a.queryKeys, b.queryKeys) + 0.3 * dice(a.queryPairs, b.queryPairs);
  const hash = a.hash === b.hash ? 1 : 0;
  return 0.2 * host + 0.5 * path + 0.2 * query + 0.1 * hash;
}
