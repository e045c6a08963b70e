import type { Embedder } from '@svc/core/healing/service/embedder';
import { postJson } from '../llm/http.ts';
import { checkVectors } from './check-vectors.ts';

export interface OpenAiEmbedderOptions {
  /** Any OpenAI-compatible server, e.g. https://api.openai.com/v1 (default) or http://127.0.0.1:8080/v1. */
  baseUrl?: string;
  apiKey?: string;
  /** Default text-embedding-3-small (1536 dimensions). */
  model?: string;
  /** Sent as `dimensions` (text-embedding-3 models can shorten); omitted when unset. */
  dimensions?: number;
  timeoutMs?: number;
}

/** POST {baseUrl}/embeddings with `{ model, input: [...] }`; answers `{ data: [{ index, embedding }] }`. */
export function openAiEmbedder(o: OpenAiEmbedderOptions = {}): Embedder {
  const base = (o.baseUrl ?? 'https://api.openai.com/v1').replace(/\/+$/, '');
  const url = /\/v\d+$/.test(base) ? `${base}/embeddings` : `${base}/v1/embeddings`;
  const model = o.model ?? 'text-embedding-3-small';
  const headers: Record<string, string> = o.apiKey ? { authorization: `Bearer ${o.apiKey}` } : {};
  return {
    model: `openai:${model}`,
    async embed(texts) {
      if (!texts.length) return [];
      const json = (await postJson('openai', url, headers, { model, input: texts, encoding_format: 'float', ...(o.dimensions ? { dimensions: o.dimensions } : {}) }, o.timeoutMs ?? 30_000)) as {
        data?: Array<{ index?: number; embedding?: unknown }>;
      };
      if (!Array.isArray(json.data)) throw new Error(`openai embeddings (${model}): the answer has no data list`);
      const ordered = [...json.data].sort((a, b) => (a.index ?? 0) - (b.index ?? 0)).map((d) => d.embedding);
      return checkVectors('openai', model, ordered, texts.length);
    },
  };
}
