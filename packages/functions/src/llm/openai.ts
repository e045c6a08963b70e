import type { LlmProvider, LlmRequest, LlmResponse } from '@svc/core/llm/types';
import { estimateTokens } from '@svc/core/llm/tiers';
import { need, postJson } from './http.ts';

export interface OpenAiOptions {
  /** Optional: local model servers (Ollama, vLLM, llama.cpp) usually need none. */
  apiKey?: string;
  /** Up to and including /v1, e.g. https://api.openai.com/v1 or http://127.0.0.1:11434/v1. */
  baseUrl?: string;
  timeoutMs?: number;
  /** Provider name in usage rows and errors (e.g. "openai", "ollama"). */
  name?: string;
}

/** Any OpenAI-compatible chat completions endpoint (POST {baseUrl}/chat/completions). */
export function openAiProvider(o: OpenAiOptions): LlmProvider {
  const base = (o.baseUrl ?? 'https://api.openai.com/v1').replace(/\/+$/, '');
  const name = o.name ?? 'openai';
  return {
    name,
    async complete(req: LlmRequest): Promise<LlmResponse> {
      const messages: Array<{ role: string; content: unknown }> = [];
      if (req.system) messages.push({ role: 'system', content: req.system });
      req.messages.forEach((m, i) => {
        const last = i === req.messages.length - 1;
        if (!last || m.role !== 'user' || !req.images?.length) messages.push({ role: m.role, content: m.content });
        else
          messages.push({
            role: m.role,
            content: [{ type: 'text', text: m.content }, ...req.images.map((img) => ({ type: 'image_url', image_url: { url: `data:${img.mediaType};base64,${img.base64}` } }))],
          });
      });
      const body = {
        model: req.model,
        messages,
        max_tokens: req.maxTokens,
        ...(req.temperature !== undefined ? { temperature: req.temperature } : {}),
        ...(req.json ? { response_format: { type: 'json_object' } } : {}),
      };
      const headers: Record<string, string> = o.apiKey ? { authorization: `Bearer ${o.apiKey}` } : {};
      const json = (await postJson(name, `${base}/chat/completions`, headers, body, o.timeoutMs ?? 60_000)) as {
        model?: string;
        choices?: Array<{ message?: { content?: string | null } }>;
        usage?: { prompt_tokens?: number; completion_tokens?: number; prompt_tokens_details?: { cached_tokens?: number | null } | null };
      };
      const choice = need(name, json.choices?.[0]?.message, 'choices[0].message');
      // Some local servers omit usage: estimate, so budgets still bind.
      const inputTokens = json.usage?.prompt_tokens ?? estimateTokens(messages.map((m) => (typeof m.content === 'string' ? m.content : '')).join('\n'));
      // OpenAI caches prompts of 1024+ tokens by itself (`cache` is not needed, nor sent) and
      // counts the cached part inside prompt_tokens: it is already in inputTokens, and only
      // named here so it is priced at the cache rate. Servers that do not cache omit it.
      const cached = Math.min(json.usage?.prompt_tokens_details?.cached_tokens ?? 0, inputTokens);
      return {
        text: choice.content ?? '',
        inputTokens,
        outputTokens: json.usage?.completion_tokens ?? estimateTokens(choice.content ?? ''),
        ...(cached > 0 ? { cacheReadTokens: cached } : {}),
        model: json.model ?? req.model,
      };
    },
  };
}
