import { BedrockRuntimeClient, ConverseCommand, type ContentBlock, type Message } from '@aws-sdk/client-bedrock-runtime';
import type { LlmProvider, LlmRequest, LlmResponse } from '@svc/core/llm/types';
import { LlmError, reasonForStatus, type LlmErrorReason } from '@svc/core/llm/errors';
import { CACHE_POINT, supportsCachePoints } from './bedrock-cache.ts';

export interface BedrockOptions {
  region: string;
  /** Override the runtime endpoint (VPC endpoint, tests); default the region's. */
  endpoint?: string;
  /** Default: the SDK's credential chain (the Lambda role on AWS). */
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  timeoutMs?: number;
}

const JSON_INSTRUCTION = 'Answer with one JSON object and nothing else.';

/**
 * Amazon Bedrock through the Converse API (one request shape for every model family).
 * With `cache`, and a model that caches (bedrock-cache.ts), a cache point follows the
 * system prompt and ends the last message: the next turn repeats both and reads them from
 * the cache. Prompts below the model's minimum (1,000–4,096 tokens) are not cached.
 */
export function bedrockProvider(o: BedrockOptions): LlmProvider {
  const client = new BedrockRuntimeClient({ region: o.region, endpoint: o.endpoint, credentials: o.credentials, maxAttempts: 1 });
  const timeoutMs = o.timeoutMs ?? 60_000;
  return {
    name: 'bedrock',
    async complete(req: LlmRequest): Promise<LlmResponse> {
      const system = [req.system, req.json ? JSON_INSTRUCTION : undefined].filter(Boolean).join('\n\n');
      const cache = req.cache === true && supportsCachePoints(req.model);
      const messages: Message[] = req.messages.map((m, i) => {
        const content: ContentBlock[] = [];
        if (i === req.messages.length - 1 && m.role === 'user') {
          for (const img of req.images ?? []) content.push({ image: { format: img.mediaType.slice('image/'.length) as 'png', source: { bytes: Buffer.from(img.base64, 'base64') } } });
        }
        content.push({ text: m.content });
        if (cache && i === req.messages.length - 1) content.push(CACHE_POINT);
        return { role: m.role, content };
      });
      let out;
      try {
        out = await client.send(
          new ConverseCommand({
            modelId: req.model,
            messages,
            ...(system ? { system: cache ? [{ text: system }, CACHE_POINT] : [{ text: system }] } : {}),
            inferenceConfig: { maxTokens: req.maxTokens, ...(req.temperature !== undefined ? { temperature: req.temperature } : {}) },
          }),
          { abortSignal: AbortSignal.timeout(timeoutMs) },
        );
      } catch (err) {
        throw mapBedrockError(err as Error & { $metadata?: { httpStatusCode?: number } }, timeoutMs);
      }
      const blocks = out.output?.message?.content;
      if (!blocks) throw new LlmError('PROVIDER_BAD_RESPONSE', 'bedrock: the answer has no output.message.content', { provider: 'bedrock' });
      // Bedrock's inputTokens leaves out what was read from or written to the cache (those
      // are cacheReadInputTokens and cacheWriteInputTokens; totalTokens has all three): they
      // are added back, so inputTokens is every input token read, as for the other providers.
      const read = out.usage?.cacheReadInputTokens ?? 0;
      const write = out.usage?.cacheWriteInputTokens ?? 0;
      return {
        text: blocks.map((b) => b.text ?? '').join(''),
        inputTokens: (out.usage?.inputTokens ?? 0) + read + write,
        outputTokens: out.usage?.outputTokens ?? 0,
        ...(read ? { cacheReadTokens: read } : {}),
        ...(write ? { cacheWriteTokens: write } : {}),
        model: req.model,
      };
    },
  };
}

/** Bedrock's exception names and HTTP statuses to the shared reasons. */
function mapBedrockError(err: Error & { $metadata?: { httpStatusCode?: number } }, timeoutMs: number): LlmError {
  const byName: Record<string, LlmErrorReason> = {
    ThrottlingException: 'PROVIDER_RATE_LIMITED',
    ServiceQuotaExceededException: 'PROVIDER_RATE_LIMITED',
    ServiceUnavailableException: 'PROVIDER_OVERLOADED',
    ModelNotReadyException: 'PROVIDER_OVERLOADED',
    ModelTimeoutException: 'PROVIDER_TIMEOUT',
    InternalServerException: 'PROVIDER_ERROR',
    AccessDeniedException: 'PROVIDER_AUTH',
    UnrecognizedClientException: 'PROVIDER_AUTH',
    ExpiredTokenException: 'PROVIDER_AUTH',
    InvalidSignatureException: 'PROVIDER_AUTH',
    ValidationException: 'PROVIDER_REJECTED',
    ResourceNotFoundException: 'PROVIDER_REJECTED',
  };
  if (err.name === 'TimeoutError' || err.name === 'AbortError') return new LlmError('PROVIDER_TIMEOUT', `bedrock: no answer within ${timeoutMs} ms`, { provider: 'bedrock' });
  const status = err.$metadata?.httpStatusCode;
  const reason = byName[err.name] ?? (status ? reasonForStatus(status) : 'PROVIDER_UNREACHABLE');
  return new LlmError(reason, `bedrock: ${err.name}${status ? ` (HTTP ${status})` : ''}: ${err.message.slice(0, 300)}`, { provider: 'bedrock', ...(status ? { status } : {}) });
}
