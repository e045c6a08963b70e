/**
 * URL handling for the crawler: one canonical form per page, a pattern per family of
 * pages (so infinite calendars and pagination are capped), and the allowed-origin check.
 */
import { escapeRegex } from '../generation/grammar/locators.ts';

const TRACKING_PARAMS = /^(utm_\w+|fbclid|gclid|mc_cid|mc_eid|_ga)$/i;

/** True for fragments that are client-side routes (#/active, #!/x) rather than in-page anchors. */
export function isHashRoute(hash: string): boolean {
  return /^#!?\//.test(hash);
}

/**
 * Canonical URL of a page: no tracking parameters, query sorted, anchors dropped; hash
 * routes kept because on single-page apps they ARE pages (#/ is the same page as none).
 */
export function normaliseUrl(raw: string, base?: string): string | undefined {
  let url: URL;
  try {
    url = new URL(raw, base);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  const params = [...url.searchParams.entries()].filter(([k]) => !TRACKING_PARAMS.test(k)).sort(([a, av], [b, bv]) => (a === b ? av.localeCompare(bv) : a.localeCompare(b)));
  url.search = params.length ? new URLSearchParams(params).toString() : '';
  const hash = url.hash;
  url.hash = isHashRoute(hash) && hash.replace(/^#!?/, '') !== '/' ? hash : '';
  if (url.pathname === '') url.pathname = '/';
  return url.toString();
}

const SEGMENT_PLACEHOLDERS: Array<[RegExp, string]> = [
  [/^\d{4}-\d{2}(-\d{2})?$/, '{date}'],
  [/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, '{uuid}'],
  [/^\d+$/, '{n}'],
  [/^[0-9a-f]{16,}$/i, '{hash}'],
];

/**
 * The family a URL belongs to: numeric, date and id path segments become placeholders
 * and query values are elided (/cal?month=2024-05 and /cal?month=2024-06 are one family).
 * The crawler caps visits per family.
 */
export function urlPattern(normalised: string): string {
  const url = new URL(normalised);
  const path = url.pathname
    .split('/')
    .map((seg) => SEGMENT_PLACEHOLDERS.find(([re]) => re.test(seg))?.[1] ?? seg)
    .join('/');
  const queryKeys = [...new Set(url.searchParams.keys())].sort();
  const hash = url.hash ? url.hash.replace(/\/\d+(?=\/|$)/g, '/{n}') : '';
  return `${url.origin}${path}${queryKeys.length ? `?${queryKeys.map((k) => `${k}=*`).join('&')}` : ''}${hash}`;
}

/** Origins a crawl may visit: the start URL's plus the allowed hosts (bare hosts or URLs). */
export function allowedOrigins(startUrl: string, allowedHosts: readonly string[] = []): Set<string> {
  const out = new Set<string>([new URL(startUrl).origin]);
  for (const h of allowedHosts) {
    try {
      out.add(new URL(/^https?:\/\//i.test(h) ? h : `http://${h}`).origin);
      if (!/^https?:\/\//i.test(h)) out.add(new URL(`https://${h}`).origin);
    } catch {
      // an unparsable host allows nothing
    }
  }
  return out;
}

export function isAllowed(url: string, origins: ReadonlySet<string>): boolean {
  try {
    return origins.has(new URL(url).origin);
  } catch {
    return false;
  }
}

/** Depth-independent key for "same document": the URL without its hash. */
export function documentOf(url: string): string {
  const u = new URL(url);
  u.hash = '';
  return u.toString();
}

/**
 * A regular expression (source, unanchored) for a URL on exactly this path — a trailing
 * slash, any query or fragment allowed — on any host, so a test checks where it is on
 * whatever app URL a run gives. `^(…)` says "is on the path", `^(?!…)` "has left it".
 */
export function onPathPattern(pathname: string): string {
  return `[a-z][a-z0-9+.-]*://[^/?#]*${escapeRegex(pathname)}/?(?:[?#]|$)`;
}
