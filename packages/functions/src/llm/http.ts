import { LlmError, reasonForStatus } from '@svc/core/llm/errors';

/**
 * POSTs JSON to a provider and returns the parsed answer, mapping every failure to an
 * LlmError: HTTP status (401/403 auth, 429 rate limit, 503/529 overload, other 5xx,
 * other 4xx), timeout, unreachable endpoint, a body that is not JSON. The provider's own
 * error message is kept (it says what was wrong) but cut short; keys are never echoed.
 */
export async function postJson(provider: string, url: string, headers: Record<string, string>, body: unknown, timeoutMs: number): Promise<unknown> {
  let res: Response;
  try {
    res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body), signal: AbortSignal.timeout(timeoutMs) });
  } catch (err) {
    const e = err as Error;
    if (e.name === 'TimeoutError' || e.name === 'AbortError') throw new LlmError('PROVIDER_TIMEOUT', `${provider}: no answer within ${timeoutMs} ms`, { provider });
    throw new LlmError('PROVIDER_UNREACHABLE', `${provider}: cannot reach ${new URL(url).origin} (${causeOf(e)})`, { provider });
  }
  let text: string;
  try {
    text = await res.text();
  } catch (err) {
    throw new LlmError('PROVIDER_TIMEOUT', `${provider}: the answer did not finish within ${timeoutMs} ms (${causeOf(err as Error)})`, { provider });
  }
  if (!res.ok) {
    const reason = reasonForStatus(res.status);
    throw new LlmError(reason, `${provider}: HTTP ${res.status} ${describeReason(reason)}: ${providerMessage(text)}`, { provider, status: res.status });
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new LlmError('PROVIDER_BAD_RESPONSE', `${provider}: the answer is not JSON`, { provider });
  }
}

function describeReason(reason: string): string {
  switch (reason) {
    case 'PROVIDER_AUTH': return '(the API key was refused; check the key and its permissions)';
    case 'PROVIDER_RATE_LIMITED': return '(rate limited)';
    case 'PROVIDER_OVERLOADED': return '(overloaded)';
    case 'PROVIDER_ERROR': return '(server error)';
    default: return '(request rejected)';
  }
}

/** The error message a provider put in its body ({error: {message}} or {message}), at most 300 chars. */
function providerMessage(text: string): string {
  let msg = text;
  try {
    const j = JSON.parse(text) as { error?: { message?: string } | string; message?: string };
    msg = (typeof j.error === 'object' ? j.error?.message : j.error) ?? j.message ?? text;
  } catch {
    // not JSON: keep the text
  }
  return (msg || 'no message').replace(/\s+/g, ' ').slice(0, 300);
}

const causeOf = (e: Error) => ((e.cause as Error | undefined)?.message ?? e.message).slice(0, 200);

/** Reads a field path from an unknown JSON value, or throws PROVIDER_BAD_RESPONSE naming it. */
export function need<T>(provider: string, value: T | undefined | null, what: string): T {
  if (value === undefined || value === null) throw new LlmError('PROVIDER_BAD_RESPONSE', `${provider}: the answer has no ${what}`, { provider });
  return value;
}
