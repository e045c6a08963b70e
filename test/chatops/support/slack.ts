import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { slackSignature } from '@svc/core/chatops/slack-request';

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

export interface ReceivedPost {
  path: string;
  headers: IncomingHttpHeaders;
  body: Record<string, any>;
  answered: number;
}

/**
 * Slack's response_url on 127.0.0.1: takes a JSON POST on any /commands/… path and
 * answers 200 (or the next scripted status, `answerNext(500)`), keeping what it received.
 */
export async function startResponseUrlDouble() {
  const received: ReceivedPost[] = [];
  const script: number[] = [];
  const waiters: Array<{ path: string; resolve: (p: ReceivedPost) => void }> = [];
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const path = req.url ?? '/';
      if (req.method !== 'POST' || !path.startsWith('/commands/')) {
        res.writeHead(404).end('no_such_url');
        return;
      }
      let body: Record<string, any> = {};
      try {
        body = JSON.parse(raw);
      } catch {
        res.writeHead(400).end('invalid_payload');
        return;
      }
      const answered = script.shift() ?? 200;
      res.writeHead(answered, { 'content-type': 'text/plain' }).end(answered === 200 ? 'ok' : 'internal_error');
      const post = { path, headers: req.headers, body, answered };
      received.push(post);
      if (answered === 200) for (const w of waiters.filter((w) => w.path === path)) w.resolve(post);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    received,
    answerNext(...statuses: number[]) {
      script.push(...statuses);
    },
    /** The first 200-answered POST to `path` (one already received, or the next). */
    delivered(path: string, timeoutMs = 60_000): Promise<ReceivedPost> {
      const done = received.find((p) => p.path === path && p.answered === 200);
      if (done) return Promise.resolve(done);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`nothing was posted to ${path}`)), timeoutMs);
        waiters.push({ path, resolve: (p) => (clearTimeout(timer), resolve(p)) });
      });
    },
    async stop() {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

export type ResponseUrlDouble = Awaited<ReturnType<typeof startResponseUrlDouble>>;
