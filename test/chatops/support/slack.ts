import { slackSignature } from '@svc/core/chatops/slack-request';
import { startPostReceiver, type PostReceiver, type ReceivedPost } from '../../support/post-receiver.ts';

/** The fields Slack posts for a slash command ("Slash commands": the payload), form-encoded. */
export interface SlashFields {
  team_id: string;
  user_id: string;
  text: string;
  response_url: string;
  command?: string;
  channel_id?: string;
  user_name?: string;
}

/**
 * POSTs a slash command as Slack does: application/x-www-form-urlencoded, with
 * X-Slack-Request-Timestamp and X-Slack-Signature (`v0=` hex HMAC-SHA256 of
 * `v0:<timestamp>:<raw body>` with the app's signing secret). `secret: null` sends no
 * signature; `timestamp` sends another time (a replay).
 */
export async function slashCommand(baseUrl: string, fields: SlashFields, opts: { secret: string | null; timestamp?: number; contentType?: string; omit?: string[] }) {
  const form: Record<string, string> = {
    token: 'deprecated-verification-token',
    team_domain: 'acme',
    channel_name: 'qa',
    api_app_id: 'A0SVC',
    trigger_id: `${Date.now()}.1.abc`,
    command: '/svc',
    channel_id: 'C0QA',
    user_name: 'ada',
    ...fields,
  };
  for (const name of opts.omit ?? []) delete form[name];
  const body = new URLSearchParams(form).toString();
  const timestamp = opts.timestamp ?? Math.floor(Date.now() / 1000);
  const headers: Record<string, string> = { 'content-type': opts.contentType ?? 'application/x-www-form-urlencoded', 'x-slack-request-timestamp': String(timestamp), 'user-agent': 'Slackbot 1.0 (+https://api.slack.com/robots)' };
  if (opts.secret !== null) headers['x-slack-signature'] = slackSignature(opts.secret, timestamp, body);
  const res = await fetch(`${baseUrl}/webhooks/chat`, { method: 'POST', headers, body });
  const text = await res.text();
  let parsed: any;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: res.status, text, body: parsed };
}

/** Slack's response_url on 127.0.0.1: the shared POST receiver, taking /commands/… paths as Slack's URLs are. */
export const startResponseUrlDouble = () => startPostReceiver('/commands/');

export type { ReceivedPost };
export type ResponseUrlDouble = PostReceiver;
