import { createHmac } from 'node:crypto';
import { AppError, validationFailed } from '../errors.ts';
import { freshTimestamp, sameText } from '../auth/signed-request.ts';

/**
 * The signature of automation events (POST /webhooks/automation) and of the run outcomes
 * svc posts back to a callback_url, docs/automation.md: `sha256=` and the hex HMAC-SHA256
 * of `<timestamp>.<raw body>` under the integration's secret. The timestamp is inside the
 * signed text, so a request replayed after five minutes is refused.
 */
export const automationSignature = (secret: string, timestamp: number | string, body: Uint8Array | string) =>
  `sha256=${createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest('hex')}`;

export const verifyAutomationSignature = (secret: string, timestamp: number, body: Uint8Array, presented: string) =>
  sameText(automationSignature(secret, timestamp, body), presented.trim().toLowerCase());

/**
 * The headers of a signed request (svc's callbacks; the docs' examples build the same).
 * Within a rotation's grace period the previous secret also signs, in its own header, so a
 * receiver still holding it can verify until it is updated (X-Svc-Signature keeps its one
 * format: a receiver comparing it exactly is not broken).
 */
export function automationHeaders(o: { integrationId: string; secret: string; previousSecret?: string | null; body: string; now: Date; deliveryId: string }): Record<string, string> {
  const timestamp = Math.floor(o.now.getTime() / 1000);
  return {
    'x-svc-integration': o.integrationId,
    'x-svc-timestamp': String(timestamp),
    'x-svc-signature': automationSignature(o.secret, timestamp, o.body),
    ...(o.previousSecret ? { 'x-svc-signature-previous': automationSignature(o.previousSecret, timestamp, o.body) } : {}),
    'x-svc-delivery': o.deliveryId,
  };
}

/** What an event's headers say, before any secret is opened. */
export interface AutomationRequest {
  integration_id: string;
  timestamp: number;
  signature: string;
  /** X-Svc-Delivery as sent (checked by deliveryIdOf once the signature verified; the body's `id` is the other place for it). */
  delivery_header: string | null;
}

/** Delivery ids become part of a run's thread id: letters, digits and . _ : - (an n8n execution id, a Zapier id, a UUID). */
export const DELIVERY_ID = /^[A-Za-z0-9._:-]{1,64}$/;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** One answer for every credential problem, so a caller learns nothing about which integrations exist. */
export const rejected = () => new AppError('INVALID_SIGNATURE', 'the request is not signed by an enabled automation integration: send X-Svc-Integration, X-Svc-Timestamp (unix seconds, within 5 minutes) and X-Svc-Signature (sha256=<hex HMAC-SHA256 of "<timestamp>.<raw body>">), see docs/automation.md');

/**
 * Reads the signature headers: refuses (401, always the same answer) a request without
 * them, with an integration that is not an id or a timestamp more than five minutes off.
 */
export function readAutomationRequest(header: (name: string) => string | undefined, now: Date): AutomationRequest {
  const integration = header('x-svc-integration')?.trim();
  const signature = header('x-svc-signature');
  const timestamp = freshTimestamp(header('x-svc-timestamp'), now);
  if (!integration || !UUID.test(integration) || !signature || timestamp === undefined) throw rejected();
  return { integration_id: integration.toLowerCase(), timestamp, signature, delivery_header: header('x-svc-delivery')?.trim() || null };
}

/** The delivery id: X-Svc-Delivery, else the body's `id`; a malformed header is 400 naming it (said only to a verified caller). */
export function deliveryIdOf(request: AutomationRequest, bodyId: string | undefined): string | null {
  if (request.delivery_header !== null && !DELIVERY_ID.test(request.delivery_header)) throw validationFailed([{ path: 'X-Svc-Delivery', message: 'at most 64 letters, digits and . _ : -' }]);
  return request.delivery_header ?? bodyId ?? null;
}
