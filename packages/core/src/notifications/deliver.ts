import { sleep } from '../sleep.ts';
import { METADATA_ADDRESS_CODE } from '../net/metadata-hosts.ts';

/** The fetch a delivery uses (global fetch; tests and embedders may pass their own). */
export type Fetch = (url: string, init: { method: string; headers: Record<string, string>; body: string; signal: AbortSignal; redirect: 'manual' }) => Promise<{ status: number; text(): Promise<string>; headers?: { get(name: string): string | null } }>;

export interface DeliveryOutcome {
  status: 'delivered' | 'failed';
  attempts: number;
  http_status: number | null;
  error: string | null;
}

const ATTEMPTS = 3;
const TIMEOUT_MS = 10_000;
const BACKOFF_MS = [500, 2_000];

/**
 * POSTs a JSON body; a network error, a timeout, a 429 or a 5xx is tried again (three
 * attempts, 0.5 s and 2 s apart); any other answer is final. 2xx is delivered; a redirect
 * is not followed (a failure naming where it pointed).
 */
export async function deliver(fetch: Fetch, url: string, body: string, headers: Record<string, string>): Promise<DeliveryOutcome> {
  let last: DeliveryOutcome = { status: 'failed', attempts: 0, http_status: null, error: 'not sent' };
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    try {
      const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'user-agent': 'svc-notifications', ...headers }, body, signal: AbortSignal.timeout(TIMEOUT_MS), redirect: 'manual' });
      if (res.status >= 200 && res.status < 300) return { status: 'delivered', attempts: attempt, http_status: res.status, error: null };
      // Not followed: a POST redirected loses its body (or is re-sent somewhere unasked), and the
      // hop was a way around the address checks (found by QA). The endpoint's own URL is wanted.
      if (res.status >= 300 && res.status < 400) {
        const location = res.headers?.get('location');
        return { status: 'failed', attempts: attempt, http_status: res.status, error: `the endpoint answered ${res.status}, a redirect${location ? ` to ${location.slice(0, 200)}` : ''}: deliveries do not follow redirects; give the endpoint's final URL` };
      }
      const text = (await res.text().catch(() => '')).slice(0, 300);
      last = { status: 'failed', attempts: attempt, http_status: res.status, error: `the endpoint answered ${res.status}${text ? `: ${text}` : ''}` };
      if (res.status !== 429 && res.status < 500) return last;
    } catch (err) {
      const e = err as Error & { cause?: { code?: string; message?: string } };
      // A refused address is final, and its message says why (the code alone would not).
      if (e.cause?.code === METADATA_ADDRESS_CODE) return { status: 'failed', attempts: attempt, http_status: null, error: e.cause.message ?? METADATA_ADDRESS_CODE };
      last = { status: 'failed', attempts: attempt, http_status: null, error: e.name === 'TimeoutError' ? `no answer within ${TIMEOUT_MS / 1000} s` : (e.cause?.code ?? e.cause?.message ?? e.message) };
    }
    if (attempt < ATTEMPTS) await sleep(BACKOFF_MS[attempt - 1]);
  }
  return last;
}
