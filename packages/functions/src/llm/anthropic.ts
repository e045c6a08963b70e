import type { LlmProvider, LlmRequest, LlmResponse } from '@svc/core/llm/types';
import { need, postJson } from './http.ts';

export interface AnthropicOptions {
  apiKey: string;
  /** Default https://api.anthropic.com; a proxy or a test server otherwise. */
  baseUrl?: string;
  version?: string;
  timeoutMs?: number;
}

const JSON_INSTRUCTION = 'Answer with one JSON object and nothing else.';

/** Anthropic's marker for "cache the prompt up to here" (five minutes, refreshed by each read). */
const CACHE_HERE = { type: 'ephemeral' } as const;

/**
 * Anthropic Messages API (POST /v1/messages). JSON mode is an instruction: the API has no
 * switch for it. With `cache`, the system prompt and the conversation so far are marked for
 * the prompt cache: the next turn repeats them and reads them from it. Prompts shorter than
 * the model's minimum (1024–4096 tokens) are simply not cached by the API.
 */
export function anthropicProvider(o: AnthropicOptions): LlmProvider {
  const base = (o.baseUrl ?? 'https://api.anthropic.com').replace(/\/+$/, '');
  return {
    name: 'anthropic',
    async complete(req: LlmRequest): Promise<LlmResponse> {
      const system = [req.system, req.json ? JSON_INSTRUCTION : undefined].filter(Boolean).join('\n\n');
      const messages = req.messages.map((m, i) => {
        const last = i === req.messages.length - 1;
        const images = last && m.role === 'user' ? (req.images ?? []) : [];
        if (!images.length && !(last && req.cache)) return { role: m.role, content: m.content };
        return {
          role: m.role,
          content: [
            ...images.map((img) => ({ type: 'image', source: { type: 'base64', media_type: img.mediaType, data: img.base64 } })),
            { type: 'text', text: m.content, ...(last && req.cache ? { cache_control: CACHE_HERE } : {}) },
          ],
        };
      });
      const body = {
        model: req.model,
        max_tokens: req.maxTokens,
        messages,
        ...(system ? { system: req.cache ? [{ type: 'text', text: system, cache_control: CACHE_HERE }] : system } : {}),
        ...(req.temperature !== undefined ? { temperature: req.temperature } : {}),
      };
      const json = (await postJson('anthropic', `${base}/v1/messages`, { 'x-api-key': o.apiKey, 'anthropic-version': o.version ?? '2023-06-01' }, body, o.timeoutMs ?? 60_000)) as {
        model?: string;
        content?: Array<{ type: string; text?: string }>;
        usage?: { input_tokens?: number; output_tokens?: number; cache_creation_input_tokens?: number | null; cache_read_input_tokens?: number | null };
      };
      const content = need('anthropic', json.content, 'content');
      const usage = need('anthropic', json.usage, 'usage');
      return {
        text: content.filter((c) => c.type === 'text').map((c) => c.text ?? '').join(''),
        // input_tokens counts only what came after the last cache marker: the cached parts are added.
        inputTokens: (usage.input_tokens ?? 0) + (usage.cache_creation_input_tokens ?? 0) + (usage.cache_read_input_tokens ?? 0),
        outputTokens: usage.output_tokens ?? 0,
        ...(usage.cache_read_input_tokens ? { cacheReadTokens: usage.cache_read_input_tokens } : {}),
        ...(usage.cache_creation_input_tokens ? { cacheWriteTokens: usage.cache_creation_input_tokens } : {}),
        model: json.model ?? req.model,
      };
    },
  };
}
