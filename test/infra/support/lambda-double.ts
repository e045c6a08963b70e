import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What a function does with one event: its result, or the error it threw. */
export type FunctionBody = (event: unknown) => Promise<{ ok: true; value: unknown } | { ok: false; error: string }>;

export interface LambdaDouble {
  endpoint: string;
  /** Every call, in order: the function, the invocation type, the event. */
  invocations: Array<{ functionName: string; type: string; event: unknown }>;
  /** Resolves when every asynchronous (Event) invocation accepted so far has run. */
  drained(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Lambda's REST API as the SDK speaks it (Invoke, GetFunctionConfiguration), for the
 * functions given: `POST /2015-03-31/functions/{name}/invocations` runs the function with
 * the request's payload — RequestResponse answers 200 with its result as the payload, or
 * with X-Amz-Function-Error: Unhandled and the runtime's error document when it threw;
 * Event answers 202 at once and runs it after — and `GET …/{name}/configuration` answers an
 * Active function. An unknown function is 404 ResourceNotFoundException. Binds 127.0.0.1.
 */
export async function startLambdaDouble(functions: Record<string, FunctionBody>): Promise<LambdaDouble> {
  const invocations: LambdaDouble['invocations'] = [];
  const background: Promise<unknown>[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const match = /^\/2015-03-31\/functions\/([^/]+)\/(invocations|configuration)$/.exec(new URL(req.url ?? '/', 'http://x').pathname);
        const name = match ? decodeURIComponent(match[1]!) : '';
        const fn = functions[name];
        const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
          res.writeHead(status, { 'content-type': 'application/json', 'x-amzn-requestid': crypto.randomUUID(), ...headers });
          res.end(body === undefined ? '' : JSON.stringify(body));
        };
        if (!match) return send(404, { message: `no route ${req.method} ${req.url}` }, { 'x-amzn-errortype': 'UnknownOperationException' });
        if (!fn) return send(404, { Type: 'User', Message: `Function not found: ${name}` }, { 'x-amzn-errortype': 'ResourceNotFoundException' });
        if (match[2] === 'configuration') return send(200, { FunctionName: name, Runtime: 'nodejs22.x', State: 'Active', LastUpdateStatus: 'Successful' });
        const type = String(req.headers['x-amz-invocation-type'] ?? 'RequestResponse');
        const event = JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null');
        invocations.push({ functionName: name, type, event });
        if (type === 'Event') {
          background.push(fn(event).catch(() => undefined));
          return send(202, undefined);
        }
        const outcome = await fn(event);
        if (outcome.ok) return send(200, outcome.value, { 'x-amz-executed-version': '$LATEST' });
        return send(200, { errorType: 'Error', errorMessage: outcome.error, trace: [] }, { 'x-amz-function-error': 'Unhandled', 'x-amz-executed-version': '$LATEST' });
      })().catch((err: unknown) => {
        res.writeHead(500);
        res.end(String(err));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    invocations,
    async drained() {
      while (background.length) await Promise.all(background.splice(0));
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
