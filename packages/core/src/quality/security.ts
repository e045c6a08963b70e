import type { AuditFinding, QualityAuditReport } from '../contracts/quality-audit.ts';
import type { PageObservation } from './page-probe.ts';

type SecuritySection = NonNullable<QualityAuditReport['security']>;

/** The response headers the check reads, as reported. */
const HEADERS = ['content-security-policy', 'strict-transport-security', 'x-content-type-options', 'x-frame-options', 'referrer-policy'] as const;

/** Resource types whose insecure load lets a network attacker run code or read data (active mixed content). */
const ACTIVE = new Set(['script', 'stylesheet', 'fetch', 'xhr', 'websocket', 'eventsource', 'document', 'font', 'manifest', 'other']);

/**
 * Security headers of the main document, the cookies the page's responses set, and mixed
 * content on https pages. Each finding has a severity and a short fix. HSTS and Secure
 * cookies are only asked of https pages: on http they mean nothing.
 */
export function checkSecurity(o: PageObservation): { section: SecuritySection; findings: AuditFinding[] } {
  const https = o.final_url.startsWith('https:');
  const h = o.headers;
  const findings: AuditFinding[] = [];
  const add = (f: Omit<AuditFinding, 'check'>) => findings.push({ check: 'security', ...f });
  const csp = h['content-security-policy'];

  if (!csp) add({ id: 'missing-csp', severity: 'medium', title: 'No Content-Security-Policy', detail: 'Without a policy an injected script runs with the page\'s rights.', fix: "Send Content-Security-Policy, e.g. default-src 'self'; object-src 'none'; frame-ancestors 'none'" });
  else if (scriptSrcAllowsInline(csp)) {
    add({ id: 'csp-unsafe-inline', severity: 'low', title: "The Content-Security-Policy allows inline scripts ('unsafe-inline')", fix: "Drop 'unsafe-inline' from script-src; use nonces or hashes" });
  }
  if (https && !h['strict-transport-security']) add({ id: 'missing-hsts', severity: 'medium', title: 'No Strict-Transport-Security', detail: 'A first visit over http can be intercepted and kept on http.', fix: 'Send Strict-Transport-Security: max-age=31536000; includeSubDomains' });
  if ((h['x-content-type-options'] ?? '').trim().toLowerCase() !== 'nosniff') add({ id: 'missing-nosniff', severity: 'low', title: 'X-Content-Type-Options is not nosniff', fix: 'Send X-Content-Type-Options: nosniff' });
  const frameAncestors = csp !== undefined && /(?:^|;)\s*frame-ancestors\s/i.test(csp);
  if (!h['x-frame-options'] && !frameAncestors) add({ id: 'missing-frame-protection', severity: 'medium', title: 'The page may be framed by any site (clickjacking)', fix: "Send X-Frame-Options: DENY (or SAMEORIGIN), or CSP frame-ancestors 'none'" });
  if (!h['referrer-policy']) add({ id: 'missing-referrer-policy', severity: 'low', title: 'No Referrer-Policy', detail: 'Browsers default to strict-origin-when-cross-origin, but older ones send full URLs (with their queries) to other sites.', fix: 'Send Referrer-Policy: strict-origin-when-cross-origin (or no-referrer)' });

  const cookies = new Map<string, SecuritySection['cookies'][number]>();
  const pageSite = siteOf(o.final_url);
  for (const r of o.requests) {
    if (siteOf(r.url) !== pageSite) continue; // third-party cookies are the third party's to fix
    for (const raw of r.set_cookies) {
      const c = parseSetCookie(raw);
      if (c && !c.deleted) cookies.set(c.name, { name: c.name, secure: c.secure, http_only: c.http_only, same_site: c.same_site });
    }
  }
  for (const c of cookies.values()) {
    if (https && !c.secure) add({ id: 'cookie-not-secure', severity: 'medium', title: `Cookie ${c.name} is sent over http too (no Secure)`, fix: 'Add Secure to the cookie', targets: [c.name] });
    if (!c.http_only) add({ id: 'cookie-not-httponly', severity: 'medium', title: `Cookie ${c.name} is readable by scripts (no HttpOnly)`, detail: 'A script injected into the page can read it; fine only for cookies scripts must read.', fix: 'Add HttpOnly unless the page\'s scripts read the cookie', targets: [c.name] });
    if (!c.same_site) add({ id: 'cookie-no-samesite', severity: 'low', title: `Cookie ${c.name} has no SameSite`, fix: 'Add SameSite=Lax (or Strict)', targets: [c.name] });
    else if (c.same_site.toLowerCase() === 'none' && !c.secure) add({ id: 'cookie-samesite-none-insecure', severity: 'medium', title: `Cookie ${c.name} is SameSite=None without Secure (browsers drop it)`, fix: 'Add Secure, or use SameSite=Lax', targets: [c.name] });
  }

  const mixed = https ? o.requests.filter((r) => r.url.startsWith('http:')) : [];
  const mixedUrls = [...new Set([...mixed.map((r) => r.url), ...(https ? o.mixed_content_messages : [])])];
  const active = mixed.filter((r) => ACTIVE.has(r.resource_type)).map((r) => r.url);
  const passive = mixed.filter((r) => !ACTIVE.has(r.resource_type)).map((r) => r.url);
  if (active.length || (https && o.mixed_content_messages.length)) add({ id: 'mixed-content-active', severity: 'high', title: 'The https page loads scripts, styles or data over http', detail: 'Chromium blocks most of it, so the page may be broken; where it loads, a network attacker can change it.', fix: 'Load every resource over https', targets: [...active, ...o.mixed_content_messages].slice(0, 20) });
  if (passive.length) add({ id: 'mixed-content-passive', severity: 'medium', title: 'The https page loads images or media over http', fix: 'Load every resource over https', targets: passive.slice(0, 20) });

  return {
    section: { https, headers: Object.fromEntries(HEADERS.map((k) => [k, h[k] ?? null])), cookies: [...cookies.values()], mixed_content: mixedUrls.slice(0, 50) },
    findings,
  };
}

/**
 * Inline scripts run when script-src (or, without it, default-src) has 'unsafe-inline' and
 * no nonce or hash (with one, browsers ignore 'unsafe-inline').
 */
function scriptSrcAllowsInline(csp: string): boolean {
  const directive = (name: string) => csp.split(';').map((d) => d.trim()).find((d) => d.toLowerCase().startsWith(`${name} `));
  const src = directive('script-src') ?? directive('default-src');
  return src !== undefined && /'unsafe-inline'/i.test(src) && !/'(?:nonce-|sha(?:256|384|512)-|strict-dynamic)/i.test(src);
}

export interface ParsedCookie {
  name: string;
  secure: boolean;
  http_only: boolean;
  same_site: string | null;
  /** Max-Age=0 or an expiry in the past: the response deletes the cookie. */
  deleted: boolean;
}

/** A Set-Cookie header value's name and the attributes the check cares about. */
export function parseSetCookie(raw: string): ParsedCookie | undefined {
  const [pair, ...attrs] = raw.split(';');
  const eq = pair.indexOf('=');
  const name = (eq < 0 ? pair : pair.slice(0, eq)).trim();
  if (!name) return undefined;
  const attr = new Map(attrs.map((a) => {
    const i = a.indexOf('=');
    return [(i < 0 ? a : a.slice(0, i)).trim().toLowerCase(), i < 0 ? '' : a.slice(i + 1).trim()] as const;
  }));
  const maxAge = attr.get('max-age');
  const expires = attr.get('expires');
  const deleted = (maxAge !== undefined && Number(maxAge) <= 0) || (expires !== undefined && Date.parse(expires) < Date.parse('2000-01-01'));
  return { name, secure: attr.has('secure'), http_only: attr.has('httponly'), same_site: attr.get('samesite') || null, deleted };
}

/** The registrable part of a host, roughly (the last two labels; an IP or localhost as is). */
function siteOf(url: string): string {
  try {
    const host = new URL(url).hostname;
    if (/^[\d.]+$/.test(host) || host.includes(':') || !host.includes('.')) return host;
    return host.split('.').slice(-2).join('.');
  } catch {
    return '';
  }
}
