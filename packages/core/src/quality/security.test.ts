import { describe, expect, it } from 'vitest';
import { checkSecurity, parseSetCookie } from './security.ts';
import type { ObservedRequest, PageObservation } from './page-probe.ts';

/**
 * What the security check asks of an https page, which the fixture app (plain http) cannot
 * serve: HSTS, Secure cookies and mixed content. Observations as the Chromium probe records them.
 */
const request = (url: string, resource_type: string, set_cookies: string[] = []): ObservedRequest => ({ url, resource_type, status: 200, transfer_bytes: 100, set_cookies });
const page = (o: Partial<PageObservation>): PageObservation => ({
  url: 'https://shop.example.com/', final_url: 'https://shop.example.com/', status: 200, headers: {}, requests: [], console_errors: [], mixed_content_messages: [],
  timing: { ttfb_ms: 10, dom_content_loaded_ms: 20, load_ms: 30, lcp_ms: 40, cls: 0 }, ...o,
});
const ids = (o: PageObservation) => checkSecurity(o).findings.map((f) => `${f.id}:${f.severity}`).sort();

describe('security check on https pages', () => {
  it('asks for HSTS and Secure cookies, and reports mixed content by kind', () => {
    const o = page({
      headers: { 'content-security-policy': "default-src 'self'; frame-ancestors 'none'", 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer' },
      requests: [
        request('https://shop.example.com/', 'document', ['sid=1; Path=/; HttpOnly; SameSite=Lax', 'gone=; Max-Age=0']),
        request('http://cdn.example.net/app.js', 'script'),
        request('http://cdn.example.net/logo.png', 'image'),
        request('https://ads.other.net/px', 'image', ['track=1']),
      ],
    });
    expect(ids(o)).toEqual(['cookie-not-secure:medium', 'missing-hsts:medium', 'mixed-content-active:high', 'mixed-content-passive:medium']);
    const { section } = checkSecurity(o);
    expect(section.cookies).toEqual([{ name: 'sid', secure: false, http_only: true, same_site: 'Lax' }]);
    expect(section.mixed_content).toEqual(['http://cdn.example.net/app.js', 'http://cdn.example.net/logo.png']);
  });

  it("counts Chromium's blocked mixed content, and flags inline scripts a policy allows", () => {
    const o = page({
      headers: { 'strict-transport-security': 'max-age=31536000', 'content-security-policy': "script-src 'self' 'unsafe-inline'", 'x-frame-options': 'DENY', 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer' },
      mixed_content_messages: ["Mixed Content: The page at 'https://shop.example.com/' was loaded over HTTPS, but requested an insecure script 'http://x/a.js'. This request has been blocked"],
    });
    expect(ids(o)).toEqual(['csp-unsafe-inline:low', 'mixed-content-active:high']);
    // A nonce makes browsers ignore 'unsafe-inline'.
    expect(ids({ ...o, mixed_content_messages: [], headers: { ...o.headers, 'content-security-policy': "script-src 'nonce-abc' 'unsafe-inline'" } })).toEqual([]);
  });

  it('reads Set-Cookie attributes case-insensitively', () => {
    expect(parseSetCookie('a=b; secure; HTTPONLY; samesite=None')).toEqual({ name: 'a', secure: true, http_only: true, same_site: 'None', deleted: false });
    expect(parseSetCookie('a=; Expires=Thu, 01 Jan 1970 00:00:00 GMT')!.deleted).toBe(true);
    expect(parseSetCookie('=x')).toBeUndefined();
  });
});
