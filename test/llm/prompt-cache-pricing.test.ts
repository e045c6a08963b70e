/**
 * What a cached prompt costs, end to end: the LLM client over the real OpenAI and Bedrock
 * adapters against local servers speaking their wire formats, usage rows in the real store.
 * Each provider's cache is priced at its own rate (cache-pricing.ts), not Anthropic's.
 * Expected costs are worked out by hand in the comments.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLlmClient } from '@svc/core/llm/client';
import type { LlmMessage, LlmProvider } from '@svc/core/llm/types';
import { createStore, type Store } from '@svc/core/store/index';
import type { Clock } from '@svc/core/ports/clock';
import { FileTable } from '../../packages/functions/src/local/file-table.ts';
import { openAiProvider } from '../../packages/functions/src/llm/openai.ts';
import { bedrockProvider } from '../../packages/functions/src/llm/bedrock.ts';
import { startWireDouble, type WireDouble } from './support/wire-double.ts';
import { bedrockConverse, openAiCompletion } from './support/formats.ts';

const clock: Clock = { now: () => new Date('2026-11-27T08:00:00Z') };
const PER_1K = 0.01;

let store: Store;
let org: string;
beforeAll(async () => {
  store = createStore(new FileTable(undefined, { clock }), clock);
  org = (await store.organizations.create({ name: 'Cache pricing org' }, { userId: 'u', email: 'u@example.com' })).organization.id;
});

/** One agent-style call (cache asked) through a client with a single model. */
async function call(provider: LlmProvider, model: string, cache: boolean, messages: LlmMessage[] = [{ role: 'user', content: 'Goal' }]) {
  const client = createLlmClient({ models: [{ provider, model, tier: 'mid', costPer1kTokens: PER_1K }], store, clock });
  return client.complete({ type: 'agent_step' }, { system: 'tools…', messages, ...(cache ? { cache: true } : {}) }, { organizationId: org });
}

async function usageRow(id: string) {
  const row = (await store.aiUsage.list(org, 100)).items.find((r) => r.id === id);
  return row && [row.provider, row.input_tokens, row.output_tokens, row.cost_usd];
}

describe('OpenAI: the automatic cache at OpenAI\'s rate', () => {
  let api: WireDouble;
  beforeAll(async () => {
    api = await startWireDouble(() => ({ body: openAiCompletion('{"answer":"up"}', { prompt: 2_000, completion: 100 }) }));
  });
  afterAll(() => api.close());

  it('cached_tokens are priced at half the input price, with no write surcharge', async () => {
    api.script.push({ body: openAiCompletion('{"answer":"up"}', { prompt: 2_000, completion: 100, cached: 1_536 }) });
    const res = await call(openAiProvider({ apiKey: 'k', baseUrl: `${api.url}/v1` }), 'gpt-4o', true);
    // 464 plain + 1,536 × 0.5 + 100 out = 1,332 weighted tokens × 0.01 / 1K. (At Anthropic's tenth it would be 0.007176.)
    expect([res.inputTokens, res.outputTokens, res.costUsd]).toEqual([2_000, 100, 0.01332]);
    expect(await usageRow(res.usageId)).toEqual(['openai', 2_000, 100, 0.01332]);
  });

  it('a cache miss (cached_tokens 0) costs every input token in full', async () => {
    const res = await call(openAiProvider({ apiKey: 'k', baseUrl: `${api.url}/v1` }), 'gpt-4o', true);
    // 2,000 + 100 = 2,100 tokens × 0.01 / 1K.
    expect([res.inputTokens, res.costUsd]).toEqual([2_000, 0.021]);
  });

  it('a compatible server under another name gets no discount svc cannot vouch for', async () => {
    api.script.push({ body: openAiCompletion('{"answer":"up"}', { prompt: 2_000, completion: 100, cached: 1_536 }) });
    const res = await call(openAiProvider({ baseUrl: `${api.url}/v1`, name: 'local' }), 'llama3.1', true);
    expect([res.inputTokens, res.costUsd]).toEqual([2_000, 0.021]);
  });
});

describe('Bedrock: cache points, at the model family\'s rate', () => {
  let api: WireDouble;
  let bedrock: LlmProvider;
  beforeAll(async () => {
    api = await startWireDouble(() => ({ body: bedrockConverse('{"answer":"up"}', { input: 900, output: 100 }) }), { http2: true });
    bedrock = bedrockProvider({ region: 'us-east-1', endpoint: api.url, credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' } });
  });
  afterAll(() => api.close());
  const hasCachePoint = () => JSON.stringify(api.requests.at(-1)!.body).includes('"cachePoint"');

  it('Claude: the first turn writes the prefix at 1.25 times input, the next reads it at a tenth', async () => {
    const model = 'anthropic.claude-3-7-sonnet-20250219-v1:0';
    // Bedrock's inputTokens (100) leaves out the 800 cached tokens.
    api.script.push({ body: bedrockConverse('{"tool":"svc_health"}', { input: 100, output: 100, cacheWrite: 800 }) });
    api.script.push({ body: bedrockConverse('{"answer":"up"}', { input: 100, output: 100, cacheRead: 800 }) });
    const first = await call(bedrock, model, true);
    expect(hasCachePoint()).toBe(true);
    const second = await call(bedrock, model, true, [{ role: 'user', content: 'Goal' }, { role: 'assistant', content: first.text }, { role: 'user', content: 'Result' }]);
    expect(hasCachePoint()).toBe(true);
    // 100 + 800 × 1.25 + 100 = 1,200 weighted tokens; then 100 + 800 × 0.1 + 100 = 280.
    expect([first.inputTokens, first.costUsd]).toEqual([900, 0.012]);
    expect([second.inputTokens, second.costUsd]).toEqual([900, 0.0028]);
    expect(await usageRow(second.usageId)).toEqual(['bedrock', 900, 100, 0.0028]);
  });

  it('Nova: a read costs a quarter of input and a write no more than input', async () => {
    const model = 'us.amazon.nova-pro-v1:0';
    api.script.push({ body: bedrockConverse('{"answer":"up"}', { input: 100, output: 100, cacheRead: 800 }) });
    const read = await call(bedrock, model, true);
    expect(hasCachePoint()).toBe(true);
    // 100 + 800 × 0.25 + 100 = 400 weighted tokens.
    expect([read.inputTokens, read.costUsd]).toEqual([900, 0.004]);
    api.script.push({ body: bedrockConverse('{"answer":"up"}', { input: 100, output: 100, cacheWrite: 800 }) });
    const written = await call(bedrock, model, true);
    // 100 + 800 × 1 + 100 = 1,000.
    expect([written.inputTokens, written.costUsd]).toEqual([900, 0.01]);
  });

  it('without cache, or on a model without caching, nothing is marked and every token costs input', async () => {
    await call(bedrock, 'anthropic.claude-3-7-sonnet-20250219-v1:0', false);
    expect(hasCachePoint()).toBe(false);
    const res = await call(bedrock, 'anthropic.claude-3-haiku-20240307-v1:0', true);
    expect(hasCachePoint()).toBe(false);
    // 900 + 100 = 1,000 tokens × 0.01 / 1K.
    expect([res.inputTokens, res.costUsd]).toEqual([900, 0.01]);
  });
});
