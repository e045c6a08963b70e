/**
 * The provider adapters against local servers speaking each provider's wire format:
 * request shape (path, headers, body), parsing of real-format answers, and error
 * mapping (auth, rate limit, overload, server error, timeout, unreachable, bad body).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LlmError } from '@svc/core/llm/errors';
import type { LlmProvider } from '@svc/core/llm/types';
import { anthropicProvider } from '../../packages/functions/src/llm/anthropic.ts';
import { openAiProvider } from '../../packages/functions/src/llm/openai.ts';
import { bedrockProvider } from '../../packages/functions/src/llm/bedrock.ts';
import { startWireDouble, type WireDouble } from './support/wire-double.ts';
import { anthropicError, anthropicMessage, bedrockConverse, bedrockError, openAiCompletion, openAiError } from './support/formats.ts';

const KEY = 'sk-test-secret-key-0123456789';
const PNG = { mediaType: 'image/png' as const, base64: Buffer.from('not really a png').toString('base64') };

async function failure(p: Promise<unknown>): Promise<LlmError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(LlmError);
    expect((err as Error).message).not.toContain(KEY);
    return err as LlmError;
  }
  throw new Error('expected the call to fail');
}

describe('Anthropic Messages API', () => {
  let api: WireDouble;
  let provider: LlmProvider;
  beforeAll(async () => {
    api = await startWireDouble(() => ({ body: anthropicMessage('Hello from Claude', { input: 31, output: 5 }, 'claude-3-5-haiku-20241022') }));
    provider = anthropicProvider({ apiKey: KEY, baseUrl: api.url, timeoutMs: 500 });
  });
  afterAll(() => api.close());

  it('sends the documented request and parses text and usage', async () => {
    const res = await provider.complete({ model: 'claude-3-5-haiku-latest', system: 'Be brief.', messages: [{ role: 'user', content: 'Hi' }], maxTokens: 100, temperature: 0.2, images: [PNG] });
    expect(res).toEqual({ text: 'Hello from Claude', inputTokens: 31, outputTokens: 5, model: 'claude-3-5-haiku-20241022' });
    const req = api.requests.at(-1)!;
    expect(req.method).toBe('POST');
    expect(req.path).toBe('/v1/messages');
    expect(req.headers['x-api-key']).toBe(KEY);
    expect(req.headers['anthropic-version']).toBe('2023-06-01');
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.headers.authorization).toBeUndefined();
    expect(req.body).toEqual({
      model: 'claude-3-5-haiku-latest',
      max_tokens: 100,
      system: 'Be brief.',
      temperature: 0.2,
      messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG.base64 } }, { type: 'text', text: 'Hi' }] }],
    });
  });

  it('with cache, marks the system prompt and the conversation so far for the prompt cache, and counts cached input as input', async () => {
    api.script.push({ body: anthropicMessage('{"tool":"svc_health"}', { input: 40, output: 9, cacheWrite: 0, cacheRead: 9_000 }) });
    const res = await provider.complete({
      model: 'claude-sonnet', system: 'You drive svc.', maxTokens: 50, cache: true,
      messages: [{ role: 'user', content: 'Goal: x' }, { role: 'assistant', content: '{"tool":"a"}' }, { role: 'user', content: 'Result of step 1' }],
    });
    expect(res).toEqual({ text: '{"tool":"svc_health"}', inputTokens: 9_040, outputTokens: 9, cacheReadTokens: 9_000, model: 'claude-test' });
    expect(api.requests.at(-1)!.body).toEqual({
      model: 'claude-sonnet',
      max_tokens: 50,
      system: [{ type: 'text', text: 'You drive svc.', cache_control: { type: 'ephemeral' } }],
      messages: [
        { role: 'user', content: 'Goal: x' },
        { role: 'assistant', content: '{"tool":"a"}' },
        { role: 'user', content: [{ type: 'text', text: 'Result of step 1', cache_control: { type: 'ephemeral' } }] },
      ],
    });
    // Without cache the request is as before: no marker anywhere.
    await provider.complete({ model: 'm', system: 'S', messages: [{ role: 'user', content: 'x' }], maxTokens: 10 });
    expect(JSON.stringify(api.requests.at(-1)!.body)).not.toContain('cache_control');
  });

  it('asks for JSON through the system prompt (the API has no JSON switch)', async () => {
    await provider.complete({ model: 'm', messages: [{ role: 'user', content: 'x' }], maxTokens: 10, json: true });
    expect(api.requests.at(-1)!.body.system).toMatch(/JSON object/);
  });

  it.each([
    [401, anthropicError('authentication_error', 'invalid x-api-key'), 'PROVIDER_AUTH', false],
    [429, anthropicError('rate_limit_error', 'Number of requests has exceeded your rate limit'), 'PROVIDER_RATE_LIMITED', true],
    [529, anthropicError('overloaded_error', 'Overloaded'), 'PROVIDER_OVERLOADED', true],
    [500, anthropicError('api_error', 'Internal server error'), 'PROVIDER_ERROR', true],
    [400, anthropicError('invalid_request_error', 'max_tokens: must be at most 8192'), 'PROVIDER_REJECTED', false],
  ])('HTTP %i maps to a clear error', async (status, body, reason, retryable) => {
    api.script.push({ status, body });
    const err = await failure(provider.complete({ model: 'm', messages: [{ role: 'user', content: 'x' }], maxTokens: 10 }));
    expect(err.reason).toBe(reason);
    expect(err.retryable).toBe(retryable);
    expect(err.message).toContain(`HTTP ${status}`);
    expect(err.message).toContain((body as { error: { message: string } }).error.message);
  });

  it('a provider that does not answer in time is a timeout', async () => {
    api.script.push({ body: anthropicMessage('late'), delayMs: 2_000 });
    const err = await failure(provider.complete({ model: 'm', messages: [{ role: 'user', content: 'x' }], maxTokens: 10 }));
    expect(err.reason).toBe('PROVIDER_TIMEOUT');
    expect(err.retryable).toBe(true);
  });

  it('a body that is not JSON, or lacks content, is a bad response', async () => {
    api.script.push({ body: null, raw: '<html>bad gateway</html>' });
    expect((await failure(provider.complete({ model: 'm', messages: [{ role: 'user', content: 'x' }], maxTokens: 10 }))).reason).toBe('PROVIDER_BAD_RESPONSE');
    api.script.push({ body: { type: 'message' } });
    expect((await failure(provider.complete({ model: 'm', messages: [{ role: 'user', content: 'x' }], maxTokens: 10 }))).message).toMatch(/no content/);
  });

  it('an endpoint nobody listens on is unreachable', async () => {
    const dead = anthropicProvider({ apiKey: KEY, baseUrl: 'http://127.0.0.1:9', timeoutMs: 2_000 });
    const err = await failure(dead.complete({ model: 'm', messages: [{ role: 'user', content: 'x' }], maxTokens: 10 }));
    expect(err.reason).toBe('PROVIDER_UNREACHABLE');
  });
});

describe('OpenAI-compatible chat completions', () => {
  let api: WireDouble;
  beforeAll(async () => {
    api = await startWireDouble(() => ({ body: openAiCompletion('{"ok":true}', { prompt: 44, completion: 6 }, 'gpt-4o-mini-2024-07-18') }));
  });
  afterAll(() => api.close());

  it('sends Bearer auth, the system message first and JSON mode; parses usage', async () => {
    const provider = openAiProvider({ apiKey: KEY, baseUrl: `${api.url}/v1`, timeoutMs: 500 });
    const res = await provider.complete({ model: 'gpt-4o-mini', system: 'sys', messages: [{ role: 'user', content: 'a' }, { role: 'assistant', content: 'b' }, { role: 'user', content: 'c' }], maxTokens: 50, json: true, images: [PNG] });
    expect(res).toEqual({ text: '{"ok":true}', inputTokens: 44, outputTokens: 6, model: 'gpt-4o-mini-2024-07-18' });
    const req = api.requests.at(-1)!;
    expect(req.path).toBe('/v1/chat/completions');
    expect(req.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(req.body).toEqual({
      model: 'gpt-4o-mini',
      max_tokens: 50,
      response_format: { type: 'json_object' },
      messages: [
        { role: 'system', content: 'sys' },
        { role: 'user', content: 'a' },
        { role: 'assistant', content: 'b' },
        { role: 'user', content: [{ type: 'text', text: 'c' }, { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG.base64}` } }] },
      ],
    });
  });

  it('reads the prompt cache from prompt_tokens_details.cached_tokens (part of prompt_tokens); `cache` changes nothing on the wire', async () => {
    const provider = openAiProvider({ apiKey: KEY, baseUrl: `${api.url}/v1`, timeoutMs: 500 });
    const messages = [{ role: 'user' as const, content: 'Goal' }, { role: 'assistant' as const, content: '{"tool":"a"}' }, { role: 'user' as const, content: 'Result' }];
    api.script.push({ body: openAiCompletion('{"answer":"up"}', { prompt: 2_048, completion: 12, cached: 1_792 }, 'gpt-4o-2024-08-06') });
    const res = await provider.complete({ model: 'gpt-4o', system: 'tools', messages, maxTokens: 64, cache: true });
    expect(res).toEqual({ text: '{"answer":"up"}', inputTokens: 2_048, outputTokens: 12, cacheReadTokens: 1_792, model: 'gpt-4o-2024-08-06' });
    const cachedBody = api.requests.at(-1)!.body;
    // OpenAI caches long prompts by itself: the request is the same with and without `cache`.
    api.script.push({ body: openAiCompletion('{"answer":"up"}', { prompt: 2_048, completion: 12 }, 'gpt-4o-2024-08-06') });
    const uncached = await provider.complete({ model: 'gpt-4o', system: 'tools', messages, maxTokens: 64 });
    expect(api.requests.at(-1)!.body).toEqual(cachedBody);
    expect(cachedBody).toEqual({ model: 'gpt-4o', max_tokens: 64, messages: [{ role: 'system', content: 'tools' }, ...messages] });
    // cached_tokens 0 (a miss) is no cache read.
    expect(uncached).toEqual({ text: '{"answer":"up"}', inputTokens: 2_048, outputTokens: 12, model: 'gpt-4o-2024-08-06' });
  });

  it('a local model server needs no key (no Authorization header) and a usage-less answer is estimated', async () => {
    const local = openAiProvider({ baseUrl: `${api.url}/v1`, name: 'local' });
    api.script.push({ body: { choices: [{ message: { content: 'twelve chars' } }] } });
    const res = await local.complete({ model: 'llama3.1', messages: [{ role: 'user', content: 'x'.repeat(40) }], maxTokens: 10 });
    expect(api.requests.at(-1)!.headers.authorization).toBeUndefined();
    expect(res.inputTokens).toBe(10);
    expect(res.outputTokens).toBe(3);
  });

  it.each([
    [401, 'PROVIDER_AUTH'],
    [429, 'PROVIDER_RATE_LIMITED'],
    [503, 'PROVIDER_OVERLOADED'],
    [502, 'PROVIDER_ERROR'],
  ])('HTTP %i maps to %s', async (status, reason) => {
    const provider = openAiProvider({ apiKey: KEY, baseUrl: `${api.url}/v1`, timeoutMs: 500 });
    api.script.push({ status, body: openAiError('You exceeded your current quota', 'insufficient_quota', 'insufficient_quota') });
    const err = await failure(provider.complete({ model: 'm', messages: [{ role: 'user', content: 'x' }], maxTokens: 10 }));
    expect(err.reason).toBe(reason);
    expect(err.message).toContain('You exceeded your current quota');
  });
});

describe('Amazon Bedrock Converse', () => {
  let api: WireDouble;
  let provider: LlmProvider;
  const modelId = 'anthropic.claude-3-haiku-20240307-v1:0';
  beforeAll(async () => {
    api = await startWireDouble(() => ({ body: bedrockConverse('Bedrock says hi', { input: 25, output: 4 }) }), { http2: true });
    provider = bedrockProvider({ region: 'us-east-1', endpoint: api.url, credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' }, timeoutMs: 2_000 });
  });
  afterAll(() => api.close());

  it('signs a Converse request and parses output and usage', async () => {
    const res = await provider.complete({ model: modelId, system: 'sys', messages: [{ role: 'user', content: 'Hi' }], maxTokens: 64, temperature: 0 });
    expect(res).toEqual({ text: 'Bedrock says hi', inputTokens: 25, outputTokens: 4, model: modelId });
    const req = api.requests.at(-1)!;
    expect(req.method).toBe('POST');
    expect(decodeURIComponent(req.path)).toBe(`/model/${modelId}/converse`);
    expect(String(req.headers.authorization)).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/us-east-1\/bedrock\/aws4_request/);
    expect(req.body).toEqual({ messages: [{ role: 'user', content: [{ text: 'Hi' }] }], system: [{ text: 'sys' }], inferenceConfig: { maxTokens: 64, temperature: 0 } });
  });

  const CACHE_POINT = { cachePoint: { type: 'default' } };
  const turns = [{ role: 'user' as const, content: 'Goal: x' }, { role: 'assistant' as const, content: '{"tool":"a"}' }, { role: 'user' as const, content: 'Result of step 1' }];

  it('with cache and a model that caches, sends a cache point after the system prompt and at the end of the last message, and counts cached input as input', async () => {
    const claude = 'us.anthropic.claude-3-7-sonnet-20250219-v1:0';
    // Bedrock's inputTokens (40) leaves the cache's tokens out: 40 + 9,000 read + 300 written were read.
    api.script.push({ body: bedrockConverse('{"tool":"svc_health"}', { input: 40, output: 9, cacheRead: 9_000, cacheWrite: 300 }) });
    const res = await provider.complete({ model: claude, system: 'You drive svc.', messages: turns, maxTokens: 50, cache: true });
    expect(res).toEqual({ text: '{"tool":"svc_health"}', inputTokens: 9_340, outputTokens: 9, cacheReadTokens: 9_000, cacheWriteTokens: 300, model: claude });
    const req = api.requests.at(-1)!;
    expect(decodeURIComponent(req.path)).toBe(`/model/${claude}/converse`);
    expect(req.body).toEqual({
      messages: [
        { role: 'user', content: [{ text: 'Goal: x' }] },
        { role: 'assistant', content: [{ text: '{"tool":"a"}' }] },
        { role: 'user', content: [{ text: 'Result of step 1' }, CACHE_POINT] },
      ],
      system: [{ text: 'You drive svc.' }, CACHE_POINT],
      inferenceConfig: { maxTokens: 50 },
    });
    // The same call without cache: no cache point anywhere, and a usage without cache fields counts as before.
    await provider.complete({ model: claude, system: 'You drive svc.', messages: turns, maxTokens: 50 });
    expect(api.requests.at(-1)!.body).toEqual({ messages: turns.map((m) => ({ role: m.role, content: [{ text: m.content }] })), system: [{ text: 'You drive svc.' }], inferenceConfig: { maxTokens: 50 } });
  });

  it.each(['anthropic.claude-3-5-haiku-20241022-v1:0', 'global.anthropic.claude-sonnet-4-5-20250929-v1:0', 'anthropic.claude-opus-4-1-20250805-v1:0', 'amazon.nova-pro-v1:0', 'eu.amazon.nova-lite-v1:0'])(
    '%s takes cache points (after the JSON instruction when there is no system prompt of the caller)',
    async (model) => {
      await provider.complete({ model, messages: [{ role: 'user', content: 'x' }], maxTokens: 10, json: true, cache: true });
      const body = api.requests.at(-1)!.body;
      expect(body.system).toEqual([{ text: expect.stringMatching(/JSON object/) }, CACHE_POINT]);
      expect(body.messages).toEqual([{ role: 'user', content: [{ text: 'x' }, CACHE_POINT] }]);
    },
  );

  it('without a system prompt only the last message carries a cache point', async () => {
    await provider.complete({ model: 'amazon.nova-micro-v1:0', messages: turns, maxTokens: 10, cache: true });
    const body = api.requests.at(-1)!.body;
    expect(body.system).toBeUndefined();
    expect(body.messages.map((m: { content: unknown[] }) => m.content.length)).toEqual([1, 1, 2]);
    expect(body.messages.at(-1).content[1]).toEqual(CACHE_POINT);
  });

  it.each([modelId, 'anthropic.claude-3-5-sonnet-20240620-v1:0', 'anthropic.claude-3-opus-20240229-v1:0', 'meta.llama3-1-70b-instruct-v1:0', 'mistral.mistral-large-2407-v1:0'])(
    '%s has no prompt caching on Bedrock: with cache the request carries no cache point (Bedrock would reject it)',
    async (model) => {
      await provider.complete({ model, system: 'S', messages: turns, maxTokens: 10, cache: true });
      const cached = api.requests.at(-1)!.body;
      await provider.complete({ model, system: 'S', messages: turns, maxTokens: 10 });
      expect(cached).toEqual(api.requests.at(-1)!.body);
      expect(JSON.stringify(cached)).not.toContain('cachePoint');
    },
  );

  it.each([
    [429, 'ThrottlingException', 'PROVIDER_RATE_LIMITED', true],
    [503, 'ServiceUnavailableException', 'PROVIDER_OVERLOADED', true],
    [403, 'AccessDeniedException', 'PROVIDER_AUTH', false],
    [400, 'ValidationException', 'PROVIDER_REJECTED', false],
  ])('HTTP %i %s maps to %s', async (status, type, reason, retryable) => {
    api.script.push(bedrockError(status, type, `${type} happened`));
    const err = await failure(provider.complete({ model: modelId, messages: [{ role: 'user', content: 'x' }], maxTokens: 10 }));
    expect(err.reason).toBe(reason);
    expect(err.retryable).toBe(retryable);
    expect(err.message).toContain(type);
  });
});
