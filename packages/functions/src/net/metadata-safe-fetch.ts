import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { Agent, fetch as undiciFetch } from 'undici';
import { isMetadataHost, metadataHostMessage, METADATA_ADDRESS_CODE } from '@svc/core/net/metadata-hosts';
import { createHttpExchange } from '@svc/core/execution/api/http-exchange';
import type { Fetch } from '@svc/core/notifications/deliver';

/** dns.lookup's shape, with every address asked for (Node's own resolver by default). */
export type AllLookup = (hostname: string, options: LookupOptions & { all: true }, callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void) => void;

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A fetch that never connects to a link-local / cloud metadata address, even through a
 * name: every host is resolved here, and one with such an address among its answers fails
 * with METADATA_ADDRESS_CODE before any connection (spec rule 9; the text checks of
 * metadata-hosts.ts see `http://169.254.169.254.nip.io/` as a public name). The address
 * connected to is the one checked — no second lookup a DNS rebinding could answer
 * differently. An IP literal (no lookup) is checked by its text, and redirects are followed
 * here, each target checked before it is requested. For svc's own outbound requests: API
 * test steps and webhook deliveries.
 */
export function createMetadataSafeFetch(options: { lookup?: AllLookup } = {}): typeof fetch {
  const resolve: AllLookup = options.lookup ?? ((hostname, o, callback) => dnsLookup(hostname, o, callback));
  const lookup = (hostname: string, o: LookupOptions, callback: LookupCallback) => {
    resolve(hostname, { ...o, all: true }, (err, addresses) => {
      if (err) return callback(err, []);
      const bad = addresses.find((a) => isMetadataHost(a.address));
      if (bad) {
        const refused: NodeJS.ErrnoException = new Error(`${hostname} resolves to ${bad.address}: ${metadataHostMessage(bad.address)}`);
        refused.code = METADATA_ADDRESS_CODE;
        return callback(refused, []);
      }
      if (o.all) return callback(null, addresses);
      const first = addresses[0];
      if (!first) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), []);
      callback(null, first.address, first.family);
    });
  };
  const dispatcher = new Agent({ connect: { lookup } });
  const once = (url: string, init: RequestInit | undefined) => {
    // An IP literal is connected to without a lookup: its text is the address (found by QA: a redirect to one went through).
    const host = new URL(url).hostname;
    if (isMetadataHost(host)) return Promise.reject(refusedFetch(host));
    return undiciFetch(url, { ...(init as object), dispatcher } as never) as unknown as Promise<Response>;
  };
  return (async (input: Parameters<typeof fetch>[0], init?: RequestInit) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : (input as Request).url;
    if (init?.redirect === 'manual' || init?.redirect === 'error') return once(url, init);
    // Followed here, hop by hop, so each target is checked as the first was (fetch's own following checks none).
    let current = url;
    let request: RequestInit = { ...init, redirect: 'manual' };
    for (let hop = 0; ; hop++) {
      const response = await once(current, request);
      const location = REDIRECTS.has(response.status) ? response.headers.get('location') : null;
      if (!location) return response;
      if (hop >= MAX_REDIRECTS) throw Object.assign(new TypeError('fetch failed'), { cause: Object.assign(new Error(`more than ${MAX_REDIRECTS} redirects`), { code: 'ERR_TOO_MANY_REDIRECTS' }) });
      await response.body?.cancel().catch(() => {});
      const next = new URL(location, current);
      const method = (request.method ?? 'GET').toUpperCase();
      // As fetch does: 303 (and 301/302 after a POST) become a GET without a body; credentials stay on their origin.
      const toGet = response.status === 303 || ((response.status === 301 || response.status === 302) && method === 'POST');
      const headers = new Headers(request.headers);
      if (next.origin !== new URL(current).origin) headers.delete('authorization');
      if (toGet) for (const name of ['content-type', 'content-length']) headers.delete(name);
      request = { ...request, headers, ...(toGet ? { method: method === 'HEAD' ? 'HEAD' : 'GET', body: undefined } : {}) };
      current = next.href;
    }
  }) as unknown as typeof fetch;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const MAX_REDIRECTS = 20;

/** What fetch throws for a refused host: a TypeError whose cause carries METADATA_ADDRESS_CODE, as a refused lookup does. */
function refusedFetch(host: string): TypeError {
  const cause: NodeJS.ErrnoException = new Error(metadataHostMessage(host));
  cause.code = METADATA_ADDRESS_CODE;
  return Object.assign(new TypeError('fetch failed'), { cause });
}

/** The process' one: a pool of connections shared by every caller. */
export const metadataSafeFetch: typeof fetch = createMetadataSafeFetch();

/** The same, typed as the delivery services take it (webhooks, notifications, statuses, chat replies). */
export const deliveryFetch = metadataSafeFetch as unknown as Fetch;

/** The HTTP exchange of API test steps on svc's runners: metadata addresses refused by name and by resolved address. */
export const safeHttpExchange = createHttpExchange({ fetch: metadataSafeFetch });
