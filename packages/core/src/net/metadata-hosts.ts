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
  // fe80::/10 link-local IPv6, and AWS's IPv6 metadata address fd00:ec2::254.
  if (/^fe[89ab][0-9a-f]?:/.test(h) || h === 'fd00:ec2::254') return true;
  // IPv4-mapped IPv6 of a link-local address (::ffff:169.254.169.254, or as URL writes it, ::ffff:a9fe:a9fe).
  if (/^::ffff:169\.254\./.test(h) || /^::ffff:a9fe:/.test(h)) return true;
  return false;
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
