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
 * differently. For svc's own outbound requests: API test steps and webhook deliveries.
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
  return ((input: Parameters<typeof fetch>[0], init?: RequestInit) => undiciFetch(input as never, { ...(init as object), dispatcher } as never)) as unknown as typeof fetch;
}

/** The process' one: a pool of connections shared by every caller. */
export const metadataSafeFetch: typeof fetch = createMetadataSafeFetch();

/** The same, typed as the delivery services take it (webhooks, notifications, statuses, chat replies). */
export const deliveryFetch = metadataSafeFetch as unknown as Fetch;

/** The HTTP exchange of API test steps on svc's runners: metadata addresses refused by name and by resolved address. */
export const safeHttpExchange = createHttpExchange({ fetch: metadataSafeFetch });
