import { createHmac } from 'node:crypto';
import { freshTimestamp, sameText as same } from '../auth/signed-request.ts';
import { AppError, validationFailed } from '../errors.ts';
import { isMetadataHost, metadataHostMessage } from '../net/metadata-hosts.ts';

/** What a slash command's headers and form say (Slack: "Slash commands", "Verifying requests from Slack"). */
export interface SlackCommandRequest {
  /** X-Slack-Request-Timestamp, unix seconds: inside the signed text, so a replay past the window is refused. */
  timestamp: number;
  /** X-Slack-Signature: `v0=` and the hex HMAC-SHA256. */
  signature: string;
  team_id: string;
  user_id: string;
  user_name: string | null;
  channel_id: string | null;
  /** The slash command as the workspace named it (`/svc`). */
  command: string;
  text: string;
  response_url: string;
}

/** Slack's signature: `v0=` + hex HMAC-SHA256 of `v0:<timestamp>:<raw body>` with the app's signing secret. */
export const slackSignature = (secret: string, timestamp: number | string, body: Uint8Array | string) =>
  `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:`).update(body).digest('hex')}`;

/** Whether the signing secret made this signature over these bytes (the raw body as received, never re-encoded). */
export const verifySlackSignature = (secret: string, request: Pick<SlackCommandRequest, 'timestamp' | 'signature'>, body: Uint8Array) =>
  same(slackSignature(secret, request.timestamp, body), request.signature.trim().toLowerCase());

/** Slack's response_url is where the outcome goes: an http(s) URL without credentials in it. */
function responseUrl(value: string | null): string {
  if (!value) throw validationFailed([{ path: 'response_url', message: 'required' }]);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw validationFailed([{ path: 'response_url', message: 'not a URL' }]);
  }
  if (!/^https?:$/.test(url.protocol) || url.username || url.password) throw validationFailed([{ path: 'response_url', message: 'expected an http(s) URL without user or password' }]);
  // Slack's own are https://hooks.slack.com/…; a metadata address is never requested (found by QA).
  if (isMetadataHost(url.hostname)) throw validationFailed([{ path: 'response_url', message: metadataHostMessage(url.hostname) }]);
  return url.toString();
}

/**
 * Reads a slash command: refuses what cannot be one before any secret is opened — no
 * signature or timestamp (401), a timestamp outside five minutes of `now` (401), a body
 * that is not form-encoded (415), a form without the fields a command has (400 naming
 * the field).
 */
export function readSlackCommand(header: (name: string) => string | undefined, body: Uint8Array, now: Date): SlackCommandRequest {
  const signature = header('x-slack-signature');
  const stamp = header('x-slack-request-timestamp');
  if (!signature || !stamp) {
    throw new AppError('INVALID_SIGNATURE', `${signature ? 'X-Slack-Request-Timestamp' : 'X-Slack-Signature'} is missing: svc takes slash commands signed by a Slack app`);
  }
  const timestamp = freshTimestamp(stamp, now);
  if (timestamp === undefined) {
    throw new AppError('INVALID_SIGNATURE', 'X-Slack-Request-Timestamp is more than 5 minutes away from svc\'s clock: a replayed request, or a clock that is off');
  }
  const type = header('content-type') ?? '';
  if (!/^application\/x-www-form-urlencoded\b/i.test(type)) {
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', `expected Content-Type application/x-www-form-urlencoded (a Slack slash command), got ${type || 'none'}`);
  }
  const form = new URLSearchParams(new TextDecoder().decode(body));
  const required = (field: string) => {
    const value = form.get(field)?.trim();
    if (!value) throw validationFailed([{ path: field, message: 'required: svc takes Slack slash commands' }]);
    return value;
  };
  return {
    timestamp,
    signature,
    team_id: required('team_id'),
    user_id: required('user_id'),
    user_name: form.get('user_name') || null,
    channel_id: form.get('channel_id') || null,
    command: required('command'),
    text: form.get('text') ?? '',
    response_url: responseUrl(form.get('response_url')),
  };
}
