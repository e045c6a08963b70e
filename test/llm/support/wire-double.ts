/**
 * A local HTTP server that stands in for a model provider: it records every request
 * (method, path, headers, parsed body) and answers from a script of responses, in the
 * provider's real wire format (see formats.ts). Bound to 127.0.0.1 on a free port.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createH2cServer, type Http2ServerRequest, type Http2ServerResponse, type Http2Session } from 'node:http2';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: any;
}

export interface ScriptedResponse {
  status?: number;
  body: unknown;
  headers?: Record<string, string>;
  /** Wait this long before answering (timeouts). */
  delayMs?: number;
  /** Send this text as the body instead of JSON. */
  raw?: string;
}

export interface WireDouble {
  url: string;
  requests: RecordedRequest[];
  /** Responses for the next requests, in order; when empty, `fallback` answers. */
  script: ScriptedResponse[];
  fallback: (req: RecordedRequest) => ScriptedResponse;
  close(): Promise<void>;
}

/**
 * `http2`: serve HTTP/2 over cleartext (prior knowledge), which is what the Bedrock
 * runtime client speaks (its default handler is HTTP/2; Bedrock serves it over TLS).
 */
export async function startWireDouble(fallback: (req: RecordedRequest) => ScriptedResponse, opts: { http2?: boolean } = {}): Promise<WireDouble> {
  const double: WireDouble = { url: '', requests: [], script: [], fallback, close: async () => undefined };
  const timers = new Set<NodeJS.Timeout>();
  const handle = (req: IncomingMessage | Http2ServerRequest, res: ServerResponse | Http2ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown = text;
      try {
        body = text ? JSON.parse(text) : undefined;
      } catch {
        // keep the text
      }
      const recorded: RecordedRequest = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body };
      double.requests.push(recorded);
      const reply = double.script.shift() ?? double.fallback(recorded);
      const send = () => {
        if (res.destroyed) return;
        (res as ServerResponse).writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...reply.headers });
        res.end(reply.raw ?? JSON.stringify(reply.body));
      };
      if (reply.delayMs) {
        const t = setTimeout(() => {
          timers.delete(t);
          send();
        }, reply.delayMs);
        timers.add(t);
      } else send();
    });
  };
  const sessions = new Set<Http2Session>();
  const server = opts.http2 ? createH2cServer(handle) : createServer(handle);
  if (opts.http2) (server as ReturnType<typeof createH2cServer>).on('session', (s) => { sessions.add(s); s.on('close', () => sessions.delete(s)); });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  double.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  double.close = () =>
    new Promise<void>((resolve) => {
      for (const t of timers) clearTimeout(t);
      server.close(() => resolve());
      if ('closeAllConnections' in server) server.closeAllConnections();
      for (const s of sessions) s.destroy();
    });
  return double;
}
