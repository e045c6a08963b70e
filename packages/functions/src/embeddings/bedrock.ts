import { BedrockRuntimeClient, InvokeModelCommand } from '@aws-sdk/client-bedrock-runtime';
import type { Embedder } from '@svc/core/healing/service/embedder';
import { checkVectors } from './check-vectors.ts';

export interface BedrockEmbedderOptions {
  region: string;
  /** Override the runtime endpoint (VPC endpoint, tests). */
  endpoint?: string;
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  /** Default amazon.titan-embed-text-v1, which returns 1536 dimensions (v2 tops out at 1024). */
  model?: string;
  timeoutMs?: number;
}

/** Titan text embeddings through InvokeModel: one request per text, body `{ inputText }`, answer `{ embedding }`. */
export function bedrockEmbedder(o: BedrockEmbedderOptions): Embedder {
  const client = new BedrockRuntimeClient({ region: o.region, endpoint: o.endpoint, credentials: o.credentials, maxAttempts: 1 });
  const model = o.model ?? 'amazon.titan-embed-text-v1';
  const timeoutMs = o.timeoutMs ?? 30_000;
  return {
    model: `bedrock:${model}`,
    async embed(texts, signal) {
      const out: unknown[] = [];
      for (const text of texts) {
        let body: { embedding?: unknown };
        try {
          const res = await client.send(
            new InvokeModelCommand({ modelId: model, contentType: 'application/json', accept: 'application/json', body: new TextEncoder().encode(JSON.stringify({ inputText: text })) }),
            { abortSignal: signal ?? AbortSignal.timeout(timeoutMs) },
          );
          body = JSON.parse(new TextDecoder().decode(res.body)) as { embedding?: unknown };
        } catch (err) {
          const e = err as Error & { $metadata?: { httpStatusCode?: number } };
          const status = e.$metadata?.httpStatusCode ? ` (HTTP ${e.$metadata.httpStatusCode})` : '';
          throw new Error(`bedrock embeddings (${model}): ${e.name}${status}: ${e.message.slice(0, 300)}`);
        }
        out.push(body.embedding);
      }
      return checkVectors('bedrock', model, out, texts.length);
    },
  };
}
