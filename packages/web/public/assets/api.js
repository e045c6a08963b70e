// Tiny fetch wrapper for the svc API (same origin, cookie session).

const ORG_KEY = 'svc.organizationId';

/** An error response from the API: `{ error: { code, message, details? } }`. */
export class ApiError extends Error {
  /**
   * @param {number} status
   * @param {string} code
   * @param {string} message
   * @param {any} [details]
   */
  constructor(status, code, message, details) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.details = details;
  }
}

/** @returns {string | null} the organization selected in this browser */
export function getOrganizationId() {
  try {
    return localStorage.getItem(ORG_KEY);
  } catch {
    return null;
  }
}

/** @param {string} id */
export function setOrganizationId(id) {
  try {
    localStorage.setItem(ORG_KEY, id);
  } catch {
    // Storage may be unavailable (private mode); the selection just won't stick.
  }
}

/**
 * Whether this browser may hold a refresh cookie. The cookie is HttpOnly (and scoped to
 * /api/auth), so the page cannot see it; instead the dashboard keeps a mark in
 * localStorage: set when a session is made or used (sign-in, a renewal, the dashboard
 * loading who is signed in), dropped on sign-out and when a renewal is refused. Without the
 * mark the sign-in page does not ask /api/auth/refresh, which could only answer 401.
 */
const SESSION_KEY = 'svc.session';

/** @returns {boolean} false only when the mark says no session was made here since the last sign-out (storage unavailable: maybe) */
export function maySessionExist() {
  try {
    return localStorage.getItem(SESSION_KEY) === '1';
  } catch {
    return true;
  }
}

/** @param {boolean} present whether a session was just made or used (true) or ended (false) */
export function markSession(present) {
  try {
    if (present) localStorage.setItem(SESSION_KEY, '1');
    else localStorage.removeItem(SESSION_KEY);
  } catch {
    // Storage may be unavailable: the sign-in page then tries renewing every time, as before.
  }
}

/** Send the browser to the sign-in page, coming back here afterwards. */
export function redirectToSignIn() {
  const next = location.pathname + location.search;
  location.assign(`/sign-in?next=${encodeURIComponent(next)}`);
}

/** @type {Promise<boolean> | undefined} */
let refreshing;

/**
 * Ask for a new access token using the HttpOnly refresh cookie. Concurrent
 * callers share one request.
 * @returns {Promise<boolean>} whether the session was renewed
 */
function refreshSession() {
  refreshing ??= fetch('/api/auth/refresh', {
    method: 'POST',
    headers: { Accept: 'application/json', 'Content-Type': 'application/json' },
    credentials: 'same-origin',
    body: '{}',
  })
    .then((res) => {
      // Refused (401): the refresh cookie is gone or spent, so the sign-in page need not try it again.
      if (res.ok || res.status === 401) markSession(res.ok);
      return res.ok;
    })
    .catch(() => false)
    .finally(() => {
      refreshing = undefined;
    });
  return refreshing;
}

/**
 * Call the API and return its parsed JSON body (undefined for 204).
 *
 * @param {string} path e.g. "/api/v1/projects"
 * @param {object} [options]
 * @param {string} [options.method]
 * @param {unknown} [options.body] sent as JSON
 * @param {boolean} [options.organization] send X-Organization-ID (default true)
 * @param {boolean} [options.redirectOn401] go to sign-in on 401 (default true)
 * @param {'json' | 'blob' | 'file'} [options.as] what a successful response is read as (default json; blob for images; file: `{ blob, filename }`, the name from Content-Disposition)
 * @param {Record<string, string>} [options.headers] more request headers (If-Match)
 * @returns {Promise<any>}
 */
export async function api(path, { method = 'GET', body, organization = true, redirectOn401 = true, as = 'json', headers: extra = {} } = {}) {
  /** @type {Record<string, string>} */
  const headers = { ...extra, Accept: as === 'json' ? 'application/json' : '*/*' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const orgId = organization ? getOrganizationId() : null;
  if (orgId) headers['X-Organization-ID'] = orgId;

  const send = () =>
    fetch(path, {
      method,
      headers,
      credentials: 'same-origin',
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  let res;
  try {
    res = await send();
    // The access token may just have expired: renew it from the refresh cookie once.
    if (res.status === 401 && redirectOn401 && (await refreshSession())) res = await send();
  } catch {
    throw new ApiError(0, 'NETWORK_ERROR', 'Could not reach the server. Check your connection and try again.');
  }

  if (res.status === 401 && redirectOn401) {
    redirectToSignIn();
    return new Promise(() => {}); // the page is going away; never settle
  }
  if (res.status === 204) return undefined;
  if (res.ok && as === 'blob') return res.blob();
  if (res.ok && as === 'file') return { blob: await res.blob(), filename: filenameOf(res.headers.get('content-disposition')) };

  const text = await res.text();
  let data;
  try {
    data = text ? JSON.parse(text) : undefined;
  } catch {
    data = undefined;
  }
  if (!res.ok) {
    const err = data && typeof data === 'object' ? data.error : undefined;
    throw new ApiError(
      res.status,
      err?.code ?? 'HTTP_' + res.status,
      err?.message ?? `Request failed (${res.status} ${res.statusText}).`,
      err?.details,
    );
  }
  return data;
}

/**
 * The file name a Content-Disposition header gives (`filename="…"`, or RFC 5987's
 * `filename*=UTF-8''…`, which wins), without any folder part; '' when it gives none.
 * @param {string | null} header
 */
export function filenameOf(header) {
  if (!header) return '';
  let name = '';
  const extended = /filename\*\s*=\s*(?:UTF-8|utf-8)''([^;]+)/.exec(header);
  if (extended) {
    try {
      name = decodeURIComponent(extended[1].trim());
    } catch {
      name = '';
    }
  }
  if (!name) name = /filename\s*=\s*"([^"]*)"/.exec(header)?.[1] ?? /filename\s*=\s*([^;\s]+)/.exec(header)?.[1] ?? '';
  return name.split(/[\\/]/).pop() ?? '';
}
