/**
 * Hosts no test has a reason to reach and an attacker has every reason to: the cloud
 * instance-metadata endpoints (and with them all of link-local), where a machine's
 * credentials are served. Test URLs are the product's input, so svc cannot refuse
 * loopback or private ranges (the app under test lives there, locally and in a VPC); it
 * refuses these (spec: Authentication rule 9, server-side request forgery).
 */
const METADATA_NAMES = new Set(['metadata.google.internal', 'metadata.goog', 'metadata', 'instance-data', 'instance-data.ec2.internal']);

/** Host as URL.hostname gives it (IPv6 with or without brackets), any case. */
export function isMetadataHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').replace(/\.$/, '').toLowerCase();
  if (METADATA_NAMES.has(h)) return true;
  // 169.254.0.0/16, link-local IPv4 (AWS, GCP, Azure, OpenStack metadata at 169.254.169.254; ECS task metadata at 169.254.170.2).
  if (/^169\.254\.\d{1,3}\.\d{1,3}$/.test(h)) return true;
  const v6 = h.includes(':') ? ipv6Hextets(h) : undefined;
  if (!v6) return false;
  // fe80::/10 link-local IPv6, and AWS's IPv6 metadata address fd00:ec2::254.
  if ((v6[0] & 0xffc0) === 0xfe80) return true;
  if (v6.join(':') === [0xfd00, 0xec2, 0, 0, 0, 0, 0, 0x254].join(':')) return true;
  // An IPv4 address carried in IPv6 (found by QA: ::a9fe:a9fe passed): IPv4-mapped
  // (::ffff:169.254.169.254), IPv4-compatible (::169.254.169.254), IPv4-translated
  // (::ffff:0:…), NAT64 (64:ff9b::/96, 64:ff9b:1::/48) and 6to4 (2002:a9fe:a9fe::).
  const zero = (from: number, to: number) => v6.slice(from, to).every((x) => x === 0);
  const embedded =
    (zero(0, 5) && (v6[5] === 0xffff || v6[5] === 0)) || (zero(0, 4) && v6[4] === 0xffff && v6[5] === 0) || (v6[0] === 0x64 && v6[1] === 0xff9b && (zero(2, 6) || v6[2] === 1))
      ? v6[6]
      : v6[0] === 0x2002
        ? v6[1]
        : undefined;
  return embedded !== undefined && embedded === 0xa9fe;
}

/** The eight 16-bit groups of an IPv6 address (`::` expanded, a trailing dotted IPv4 read as two groups); undefined when it is not one. */
function ipv6Hextets(host: string): number[] | undefined {
  let text = host.replace(/%.*$/, '');
  const dotted = /(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (dotted) {
    const b = dotted.slice(1).map(Number);
    if (b.some((x) => x > 255)) return undefined;
    text = `${text.slice(0, dotted.index)}${((b[0] << 8) | b[1]).toString(16)}:${((b[2] << 8) | b[3]).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const groups = (part: string) => (part === '' ? [] : part.split(':'));
  const head = groups(halves[0]);
  const tail = halves.length === 2 ? groups(halves[1]) : [];
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined;
  const all = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...tail];
  if (!all.every((g) => /^[0-9a-f]{1,4}$/.test(g))) return undefined;
  return all.map((g) => parseInt(g, 16));
}

/**
 * The same hosts as Chromium's --host-resolver-rules: each resolves to nothing
 * (ERR_NAME_NOT_RESOLVED) for every request the browser makes — a redirect a goto follows,
 * a page's images, scripts and fetches — not only the URL a step names (QA found a redirect
 * from the app to 169.254.169.254 followed and its page read back through extract). Chromium
 * matches these against the URL's host as written (IPv6 without brackets; `*` any run of
 * characters, `?` one), before any DNS, at no cost per request. A public name that resolves
 * to such an address is not covered (the network's egress rules are).
 */
export const METADATA_HOST_RESOLVER_RULES = [
  '169.254.*',
  '::ffff:a9fe:*',
  '::a9fe:*',
  '::ffff:0:a9fe:*',
  '64:ff9b::a9fe:*',
  '2002:a9fe:*',
  'fe8?:*',
  'fe9?:*',
  'fea?:*',
  'feb?:*',
  'fd00:ec2::254',
  ...METADATA_NAMES,
  ...[...METADATA_NAMES].map((name) => `${name}.`),
]
  .map((host) => `MAP ${host} ~NOTFOUND`)
  .join(', ');

/** True when `url` is an absolute URL whose host is one of these (a path, or text that is no URL, is not). */
export function isMetadataUrl(url: string): boolean {
  return URL.canParse(url) && isMetadataHost(new URL(url).hostname);
}

/** The message a refused URL gets, naming the host. */
export const metadataHostMessage = (host: string) => `${host} is a link-local / cloud metadata address, which svc never requests (server-side request forgery)`;

/**
 * The error code a connection gets when a host name resolves to one of these addresses
 * (functions/src/net/metadata-safe-fetch.ts): the name passed every check by its text.
 */
export const METADATA_ADDRESS_CODE = 'ESVC_METADATA_ADDRESS';
