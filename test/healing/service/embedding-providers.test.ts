import { describe, it, expect, afterEach } from 'vitest';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { createServer as createH2cServer, type Http2Server } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { openAiEmbedder } from '../../../packages/functions/src/embeddings/openai.ts';
import { bedrockEmbedder } from '../../../packages/functions/src/embeddings/bedrock.ts';
import { embedderFromEnv } from '../../../packages/functions/src/embeddings/from-env.ts';

/**
 * Provider embedders against local HTTP servers speaking the providers' wire formats
 * (OpenAI /v1/embeddings; Bedrock InvokeModel for Titan text embeddings v1). The Bedrock
 * runtime client speaks HTTP/2 (as AWS does), so its double is a cleartext HTTP/2 server.
 */
interface Seen {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: any;
}
let server: Server | Http2Server | undefined;
const sockets = new Set<import('node:net').Socket>();
afterEach(async () => {
  // The SDK keeps its HTTP/2 session open: end the connections so close() returns.
  for (const socket of sockets) socket.destroy();
  sockets.clear();
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  server = undefined;
});

async function serve(answer: (seen: Seen) => { status?: number; body: unknown }, http2 = false): Promise<{ url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const handler = async (req: IncomingMessage | import('node:http2').Http2ServerRequest, res: any) => {
    let text = '';
    for await (const chunk of req) text += chunk;
    const s: Seen = { method: req.method!, path: req.url!, headers: req.headers as IncomingMessage['headers'], body: text ? JSON.parse(text) : undefined };
    seen.push(s);
    const a = answer(s);
    res.writeHead(a.status ?? 200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(a.body));
  };
  server = http2 ? createH2cServer(handler) : createServer(handler);
  server.on('connection', (socket: import('node:net').Socket) => sockets.add(socket));
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', () => r()));
  return { url: `http://127.0.0.1:${(server!.address() as AddressInfo).port}`, seen };
}

const vector = (seed: number, n = 1536) => Array.from({ length: n }, (_, i) => Math.sin(seed + i));

describe('OpenAI-compatible embedder', () => {
  it('POSTs {model, input} to /v1/embeddings with the key and returns vectors in input order', async () => {
    const { url, seen } = await serve((s) => ({ body: { object: 'list', model: s.body.model, data: [{ object: 'embedding', index: 1, embedding: vector(2) }, { object: 'embedding', index: 0, embedding: vector(1) }], usage: { prompt_tokens: 4, total_tokens: 4 } } }));
    const e = openAiEmbedder({ baseUrl: `${url}/v1`, apiKey: 'sk-test-secret', model: 'text-embedding-3-small' });
    const out = await e.embed(['first failure', 'second failure']);
    expect(out[0]).toEqual(vector(1));
    expect(out[1]).toEqual(vector(2));
    expect(seen[0]).toMatchObject({ method: 'POST', path: '/v1/embeddings', body: { model: 'text-embedding-3-small', input: ['first failure', 'second failure'], encoding_format: 'float' } });
    expect(seen[0].headers.authorization).toBe('Bearer sk-test-secret');
    expect(e.model).toBe('openai:text-embedding-3-small');
  });

  it('refuses vectors that are not 1536-dimensional, and provider errors, without echoing the key', async () => {
    const { url } = await serve(() => ({ body: { data: [{ index: 0, embedding: vector(1, 1024) }] } }));
    await expect(openAiEmbedder({ baseUrl: url, apiKey: 'sk-secret' }).embed(['x'])).rejects.toMatchObject({ message: expect.stringMatching(/1024 dimensions; memory stores 1536/) });
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((r) => server!.close(() => r()));
    const failing = await serve(() => ({ status: 401, body: { error: { message: 'Incorrect API key provided' } } }));
    let message = '';
    try {
      await openAiEmbedder({ baseUrl: failing.url, apiKey: 'sk-secret' }).embed(['x']);
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/HTTP 401/);
    expect(message).not.toContain('sk-secret');
  });
});

describe('Bedrock Titan embedder', () => {
  it('invokes /model/amazon.titan-embed-text-v1/invoke once per text with {inputText}', async () => {
    const { url, seen } = await serve((s) => ({ body: { embedding: vector(s.body.inputText.length), inputTextTokenCount: 3 } }), true);
    const e = bedrockEmbedder({ region: 'us-east-1', endpoint: url, credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret-example' } });
    const out = await e.embed(['abc', 'abcd']);
    expect(out).toEqual([vector(3), vector(4)]);
    expect(seen.map((s) => [s.method, s.path])).toEqual([['POST', '/model/amazon.titan-embed-text-v1/invoke'], ['POST', '/model/amazon.titan-embed-text-v1/invoke']]);
    expect(seen[0].body).toEqual({ inputText: 'abc' });
    expect(seen[0].headers['content-type']).toBe('application/json');
    expect(String(seen[0].headers.authorization)).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/us-east-1\/bedrock\/aws4_request/);
  });

  it('names the model and the dimension when the answer does not fit', async () => {
    const { url } = await serve(() => ({ body: { embedding: vector(1, 1024) } }), true);
    const e = bedrockEmbedder({ region: 'us-east-1', endpoint: url, model: 'amazon.titan-embed-text-v2:0', credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret-example' } });
    await expect(e.embed(['x'])).rejects.toMatchObject({ message: expect.stringMatching(/amazon\.titan-embed-text-v2:0.*1024 dimensions/) });
  });
});

describe('embedder configuration', () => {
  it('defaults to the local embedder and refuses bad settings naming the variable', () => {
    expect(embedderFromEnv({}).model).toBe('svc-local-hash-v1');
    expect(embedderFromEnv({ SVC_EMBEDDINGS_PROVIDER: 'openai', SVC_OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' }).model).toBe('openai:text-embedding-3-small');
    expect(embedderFromEnv({ SVC_EMBEDDINGS_PROVIDER: 'bedrock', AWS_REGION: 'eu-west-1' }).model).toBe('bedrock:amazon.titan-embed-text-v1');
    expect(() => embedderFromEnv({ SVC_EMBEDDINGS_PROVIDER: 'nope' })).toThrow(/SVC_EMBEDDINGS_PROVIDER/);
    expect(() => embedderFromEnv({ SVC_EMBEDDINGS_PROVIDER: 'openai' })).toThrow(/SVC_EMBEDDINGS_API_KEY/);
    expect(() => embedderFromEnv({ SVC_EMBEDDINGS_PROVIDER: 'bedrock' })).toThrow(/SVC_BEDROCK_REGION/);
  });
});
