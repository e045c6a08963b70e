import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local HTTP endpoint speaking the AWS JSON protocol (1.0 for SQS, 1.1 for
 * EventBridge): the edge of the world for adapter tests. It records every request —
 * target, headers, parsed body — and answers with what the test's responder returns.
 */
export interface AwsRequest {
  target: string;
  headers: IncomingHttpHeaders;
  body: any;
}

export type Responder = (req: AwsRequest) => { status?: number; body: unknown } | Promise<{ status?: number; body: unknown }>;

export async function startAwsDouble(responder: Responder) {
  const requests: AwsRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const request: AwsRequest = { target: String(req.headers['x-amz-target'] ?? ''), headers: req.headers, body: text ? JSON.parse(text) : undefined };
      requests.push(request);
      try {
        const out = await responder(request);
        const json = JSON.stringify(out.body);
        res.writeHead(out.status ?? 200, { 'content-type': String(req.headers['content-type'] ?? 'application/x-amz-json-1.1'), 'content-length': Buffer.byteLength(json), 'x-amzn-requestid': crypto.randomUUID() });
        res.end(json);
      } catch (err) {
        res.writeHead(500, { 'content-type': 'application/x-amz-json-1.1' });
        res.end(JSON.stringify({ __type: 'InternalFailure', message: (err as Error).message }));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    endpoint,
    requests,
    clientConfig: { endpoint, region: 'eu-west-1', credentials: { accessKeyId: 'AKIDLOCAL', secretAccessKey: 'local-secret' }, maxAttempts: 1 },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
