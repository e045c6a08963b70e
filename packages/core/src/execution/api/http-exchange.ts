import type { ApiRequestStep } from '../../contracts/steps.ts';
import { StepFailure, type HttpExchange, type HttpResult, type StepContext } from '../types.ts';
import { isMetadataHost, metadataHostMessage, METADATA_ADDRESS_CODE } from '../../net/metadata-hosts.ts';
import { parseJsonExact } from './exact-json.ts';

const describeHost = (url: URL) => `${url.protocol}//${url.host}`;

/**
 * The HTTP port for API tests, over the standard fetch (undici in Node).
 *
 * - Relative URLs resolve against ctx.baseUrl; only http: and https: are allowed.
 * - Redirects are followed (up to 20) as fetch does — 303, and 301/302 after a POST,
 *   turn into a GET without a body; Authorization is dropped when the origin changes —
 *   but hop by hop, so that `allowHost` sees every host the request goes to. The result
 *   is the final response.
 * - The whole exchange, body included, is bounded by ctx.deadline and ctx.signal.
 * - Failures are StepFailures: 'network' (refused, DNS, TLS, reset — naming the cause
 *   code such as ECONNREFUSED or CERT_HAS_EXPIRED), 'timeout' (deadline), 'cancelled'
 *   (ctx.signal), 'configuration' (bad URL, host not allowed).
 */
export interface HttpExchangeOptions {
  /**
   * SSRF guard (spec rule 9): called with the host name (URL.hostname, lower case, IPv6
   * without brackets) of the request and of every redirect target; false refuses the
   * request with a 'configuration' failure. The CLI runs on the user's machine and allows
   * everything (the default); a hosted runner should refuse loopback, link-local
   * (169.254.169.254), private ranges and internal names. Note the guard sees names, not
   * resolved addresses: a public name resolving to a private address passes it, so a
   * hosted runner should also restrict egress at the network level.
   */
  allowHost?: (host: string) => boolean;
  /** The fetch to use (default: globalThis.fetch). */
  fetch?: typeof fetch;
  /** Most redirects followed before failing (default 20, as browsers). */
  maxRedirects?: number;
  /**
   * Largest response body read, in bytes (default MAX_RESPONSE_BODY_BYTES): a bigger (or
   * endless) one fails the step instead of filling the runner's memory.
   */
  maxBodyBytes?: number;
}

/** 50 MiB: far beyond any API response a test asserts on, far below a CI runner's memory. */
export const MAX_RESPONSE_BODY_BYTES = 50 * 1024 * 1024;

const REDIRECT = new Set([301, 302, 303, 307, 308]);
const JSON_TYPE = /^(?:application|text)\/(?:[\w.-]+\+)?json\s*(?:;|$)/i;

/** True for application/json, application/problem+json, text/json …, with parameters. */
export const isJsonContentType = (contentType: string | undefined): boolean => contentType !== undefined && JSON_TYPE.test(contentType.trim());

/** The URL without credentials, for messages. */
export function redactUrl(url: URL): string {
  if (!url.username && !url.password) return url.href;
  const copy = new URL(url.href);
  copy.username = copy.username ? '***' : '';
  copy.password = '';
  return copy.href;
}

function toBase64(s: string): string {
  let binary = '';
  for (const byte of new TextEncoder().encode(s)) binary += String.fromCharCode(byte);
  return btoa(binary);
}

function resolveUrl(step: ApiRequestStep, baseUrl: string | undefined): URL {
  let url: URL;
  try {
    url = baseUrl ? new URL(step.url, baseUrl) : new URL(step.url);
  } catch {
    if (!baseUrl && !/^[a-z][a-z0-9+.-]*:/i.test(step.url)) {
      throw new StepFailure('configuration', `request URL ${JSON.stringify(step.url)} is relative and no base URL is configured (a server run takes it from the project's app URL or the run's app_url; svc run from --url)`);
    }
    throw new StepFailure('configuration', `invalid request URL ${JSON.stringify(step.url)}${baseUrl ? ` (base URL ${baseUrl})` : ''}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new StepFailure('configuration', `request URL must be http or https, got ${url.protocol.replace(/:$/, '')}: ${redactUrl(url)}`);
  }
  if (step.query) for (const [k, v] of Object.entries(step.query)) url.searchParams.append(k, String(v));
  return url;
}

/**
 * fetch refuses URLs with credentials; like curl, user:password@ in the URL becomes Basic
 * auth (unless the step sets Authorization) and leaves the URL, so it never reaches a message.
 */
function takeUserinfo(url: URL): { username: string; password: string } | undefined {
  if (!url.username && !url.password) return undefined;
  const decode = (s: string) => {
    try {
      return decodeURIComponent(s);
    } catch {
      return s;
    }
  };
  const credentials = { username: decode(url.username), password: decode(url.password) };
  url.username = '';
  url.password = '';
  return credentials;
}

function buildHeaders(step: ApiRequestStep, userinfo: { username: string; password: string } | undefined): Headers {
  const headers = new Headers();
  for (const [k, v] of Object.entries(step.headers ?? {})) headers.set(k, v);
  const auth = step.auth;
  if (auth?.type === 'bearer') headers.set('authorization', `Bearer ${auth.token}`);
  else if (auth?.type === 'basic') headers.set('authorization', `Basic ${toBase64(`${auth.username}:${auth.password}`)}`);
  else if (auth?.type === 'header') headers.set(auth.name, auth.value);
  if (userinfo && !headers.has('authorization')) headers.set('authorization', `Basic ${toBase64(`${userinfo.username}:${userinfo.password}`)}`);
  if (step.json !== undefined && !headers.has('content-type')) headers.set('content-type', 'application/json');
  if (step.form !== undefined && !headers.has('content-type')) headers.set('content-type', 'application/x-www-form-urlencoded;charset=UTF-8');
  return headers;
}

function buildBody(step: ApiRequestStep): string | undefined {
  if (step.json !== undefined) return JSON.stringify(step.json);
  if (step.form !== undefined) return new URLSearchParams(step.form).toString();
  return step.body;
}

/** The cause code of a fetch error (ECONNREFUSED, ENOTFOUND, CERT_HAS_EXPIRED …) and its message. */
function causeOf(err: unknown): { code?: string; message?: string } {
  let code: string | undefined;
  let message: string | undefined;
  let e: unknown = err;
  for (let depth = 0; depth < 6 && e; depth++) {
    const x = e as { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown[] };
    if (code === undefined && typeof x.code === 'string') code = x.code;
    if (message === undefined && typeof x.message === 'string' && x.message && x.message !== 'fetch failed') message = x.message;
    // Node reports "localhost" failures as an AggregateError (one error per address).
    e = x.cause ?? (Array.isArray(x.errors) ? x.errors[0] : undefined);
  }
  return { code, message };
}

/** What a network error code means, for the codes a test most often meets. */
const NETWORK_MEANING: Record<string, string> = {
  ECONNREFUSED: 'nothing is listening on that port',
  ENOTFOUND: 'the host name does not resolve',
  EAI_AGAIN: 'the host name could not be resolved (DNS unavailable)',
  ECONNRESET: 'the server closed the connection',
  ERR_SSL_WRONG_VERSION_NUMBER: 'the server does not speak TLS on that port (an http:// server?)',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'the server\'s certificate is self-signed',
  SELF_SIGNED_CERT_IN_CHAIN: 'the certificate chain ends in a self-signed certificate',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'the certificate is not signed by a trusted authority',
  CERT_HAS_EXPIRED: 'the server\'s certificate has expired',
  ERR_TLS_CERT_ALTNAME_INVALID: 'the certificate is not for this host name',
};

/**
 * The failure's cause in words: the code, with what it means where known; else the
 * message. OpenSSL's own text (`C0DCE519…:error:0A00010B:SSL routines:…tlsany_meth.c:77:`)
 * and undici's "bad port" say nothing to a tester.
 */
function describeCause(cause: { code?: string; message?: string }, url: URL): string {
  const meaning = cause.code ? NETWORK_MEANING[cause.code] : undefined;
  if (cause.code && meaning) return `${cause.code} (${meaning})`;
  if (cause.message === 'bad port') return `port ${url.port} is one browsers and fetch refuse to use (a blocked port)`;
  const message = cause.message && !/:error:[0-9A-F]+:/.test(cause.message) ? cause.message : undefined;
  return `${cause.code ?? 'network error'}${message && message !== cause.code ? ` (${message})` : ''}`;
}

function headersToRecord(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  headers.forEach((value, name) => {
    out[name] = name in out ? `${out[name]}, ${value}` : value;
  });
  return out;
}

function parseBody(text: string, contentType: string | undefined): unknown {
  const json = isJsonContentType(contentType);
  // No content type at all: accept a body that plainly is JSON; a labelled non-JSON body stays text.
  const unlabelled = contentType === undefined && /^\s*[[{]/.test(text);
  if (!json && !unlabelled) return text;
  if (text.trim() === '') return undefined;
  try {
    return parseJsonExact(text);
  } catch {
    return json ? undefined : text;
  }
}

/** Creates the HTTP exchange; see HttpExchangeOptions for the SSRF guard. */
export function createHttpExchange(options: HttpExchangeOptions = {}): HttpExchange {
  const doFetch = options.fetch ?? globalThis.fetch;
  const maxRedirects = options.maxRedirects ?? 20;
  const maxBodyBytes = options.maxBodyBytes ?? MAX_RESPONSE_BODY_BYTES;

  const checkHost = (url: URL) => {
    if (isMetadataHost(url.hostname)) throw new StepFailure('configuration', `${describeHost(url)}: ${metadataHostMessage(url.hostname)}`, { host: url.hostname });
    if (options.allowHost && !options.allowHost(url.hostname.replace(/^\[|\]$/g, '').toLowerCase())) {
      throw new StepFailure('configuration', `requests to host ${url.hostname} are not allowed on this runner`, { host: url.hostname });
    }
  };

  return async (step: ApiRequestStep, ctx: StepContext & { baseUrl?: string }): Promise<HttpResult> => {
    let url = resolveUrl(step, ctx.baseUrl);
    const userinfo = takeUserinfo(url);
    let method: string = step.method ?? 'GET';
    const describe = () => `${method} ${redactUrl(url)}`;
    if (ctx.signal.aborted) throw new StepFailure('cancelled', `${describe()} was cancelled`);
    const remaining = ctx.deadline - Date.now();
    if (remaining <= 0) throw new StepFailure('timeout', `${describe()}: no time left before the step deadline`);

    const timeout = AbortSignal.timeout(remaining);
    const signal = AbortSignal.any([ctx.signal, timeout]);
    const headers = buildHeaders(step, userinfo);
    let body = buildBody(step);
    const started = performance.now();

    try {
      for (let hop = 0; ; hop++) {
        checkHost(url);
        const response = await doFetch(url, { method, headers, body: method === 'GET' || method === 'HEAD' ? undefined : body, redirect: 'manual', signal });
        const location = response.headers.get('location');
        if (REDIRECT.has(response.status) && location && step.follow_redirects !== false) {
          await response.body?.cancel().catch(() => {});
          if (hop >= maxRedirects) throw new StepFailure('network', `${describe()}: more than ${maxRedirects} redirects`);
          let next: URL;
          try {
            next = new URL(location, url);
          } catch {
            throw new StepFailure('http', `${describe()}: redirect to an invalid location ${JSON.stringify(location)}`);
          }
          if (next.protocol !== 'http:' && next.protocol !== 'https:') throw new StepFailure('http', `${describe()}: redirect to a non-HTTP location ${redactUrl(next)}`);
          if (response.status === 303 ? method !== 'GET' && method !== 'HEAD' : (response.status === 301 || response.status === 302) && method === 'POST') {
            method = 'GET';
            body = undefined;
            for (const h of ['content-type', 'content-length', 'content-encoding', 'content-language', 'content-location']) headers.delete(h);
          }
          if (next.origin !== url.origin) {
            headers.delete('authorization');
            headers.delete('cookie');
            headers.delete('proxy-authorization');
          }
          takeUserinfo(next); // credentials in a Location header are not followed
          ctx.log('debug', `${describe()} → ${response.status}, following to ${redactUrl(next)}`);
          url = next;
          continue;
        }
        const text = method === 'HEAD' ? '' : await readCapped(response, maxBodyBytes, describe);
        const duration_ms = Math.round(performance.now() - started);
        const responseHeaders = headersToRecord(response.headers);
        return { status: response.status, headers: responseHeaders, body: parseBody(text, responseHeaders['content-type']), text, duration_ms };
      }
    } catch (err) {
      if (err instanceof StepFailure) throw err;
      if (ctx.signal.aborted) throw new StepFailure('cancelled', `${describe()} was cancelled`);
      if (timeout.aborted) throw new StepFailure('timeout', `${describe()}: no complete response within ${remaining} ms (the step deadline)`, { timeout_ms: remaining });
      const cause = causeOf(err);
      // A name that resolves to a metadata address (the fetch adapter resolves and checks): refused as the literal address is.
      if (cause.code === METADATA_ADDRESS_CODE) throw new StepFailure('configuration', `${describe()}: ${cause.message ?? metadataHostMessage(url.hostname)}`, { host: url.hostname });
      throw new StepFailure('network', `${describe()} failed: ${describeCause(cause, url)}`, { code: cause.code });
    }
  };
}

/** The body as text, failing the step once it passes `max` bytes (the rest is not read). */
async function readCapped(response: Response, max: number, describe: () => string): Promise<string> {
  const declared = Number(response.headers.get('content-length'));
  const tooBig = () => new StepFailure('http', `${describe()}: the response body is larger than ${max} bytes (${Math.round(max / 1024 / 1024)} MiB), more than svc reads; assert on its status and headers (a HEAD request), or ask for less`, { max_bytes: max });
  if (declared > max) {
    await response.body?.cancel().catch(() => {});
    throw tooBig();
  }
  if (!response.body) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => {});
      throw tooBig();
    }
    chunks.push(value);
  }
  const all = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    all.set(c, at);
    at += c.byteLength;
  }
  return new TextDecoder().decode(all);
}

/** The exchange with no host restriction (the CLI's). */
export const httpExchange: HttpExchange = createHttpExchange();
