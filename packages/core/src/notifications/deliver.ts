import { sleep } from '../sleep.ts';

/** The fetch a delivery uses (global fetch; tests and embedders may pass their own). */
export type Fetch = (url: string, init: { method: string; headers: Record<string, string>; body: string; signal: AbortSignal }) => Promise<{ status: number; text(): Promise<string> }>;

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
 * attempts, 0.5 s and 2 s apart); any other answer is final. 2xx is delivered.
 */
export async function deliver(fetch: Fetch, url: string, body: string, headers: Record<string, string>): Promise<DeliveryOutcome> {
  let last: DeliveryOutcome = { status: 'failed', attempts: 0, http_status: null, error: 'not sent' };
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    try {
      const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'user-agent': 'svc-notifications', ...headers }, body, signal: AbortSignal.timeout(TIMEOUT_MS) });
      if (res.status >= 200 && res.status < 300) return { status: 'delivered', attempts: attempt, http_status: res.status, error: null };
      const text = (await res.text().catch(() => '')).slice(0, 300);
      last = { status: 'failed', attempts: attempt, http_status: res.status, error: `the endpoint answered ${res.status}${text ? `: ${text}` : ''}` };
      if (res.status !== 429 && res.status < 500) return last;
    } catch (err) {
      const e = err as Error & { cause?: { code?: string; message?: string } };
      last = { status: 'failed', attempts: attempt, http_status: null, error: e.name === 'TimeoutError' ? `no answer within ${TIMEOUT_MS / 1000} s` : (e.cause?.code ?? e.cause?.message ?? e.message) };
    }
    if (attempt < ATTEMPTS) await sleep(BACKOFF_MS[attempt - 1]);
  }
  return last;
}
