import { createHmac } from 'node:crypto';

/**
 * Signs as docs/automation.md says, with node:crypto rather than svc's own code: `sha256=`
 * and the hex HMAC-SHA256 of `<timestamp>.<raw body>` under the integration's secret.
 */
export const sign = (secret: string, timestamp: number, body: string) => `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;

export const unixNow = () => Math.floor(Date.now() / 1000);

/**
 * POSTs an event to /webhooks/automation as an automation tool does. `as` overrides what
 * is signed with or sent: another integration id, another secret (null: no signature), a
 * replayed timestamp, a delivery id.
 */
export async function sendEvent(baseUrl: string, integration: { id: string; secret: string }, event: Record<string, unknown>, as: { id?: string; secret?: string | null; timestamp?: number; delivery?: string } = {}) {
  const body = JSON.stringify(event);
  const timestamp = as.timestamp ?? unixNow();
  const headers: Record<string, string> = { 'content-type': 'application/json', 'x-svc-integration': as.id ?? integration.id, 'x-svc-timestamp': String(timestamp) };
  const secret = as.secret === undefined ? integration.secret : as.secret;
  if (secret !== null) headers['x-svc-signature'] = sign(secret, timestamp, body);
  if (as.delivery) headers['x-svc-delivery'] = as.delivery;
  const res = await fetch(`${baseUrl}/webhooks/automation`, { method: 'POST', headers, body });
  const text = await res.text();
  return { status: res.status, text, body: text ? JSON.parse(text) : undefined, retryAfter: res.headers.get('retry-after') };
}
