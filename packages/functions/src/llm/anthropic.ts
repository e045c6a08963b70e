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

/** Anthropic Messages API (POST /v1/messages). JSON mode is an instruction: the API has no switch for it. */
export function anthropicProvider(o: AnthropicOptions): LlmProvider {
  const base = (o.baseUrl ?? 'https://api.anthropic.com').replace(/\/+$/, '');
  return {
    name: 'anthropic',
    async complete(req: LlmRequest): Promise<LlmResponse> {
      const system = [req.system, req.json ? JSON_INSTRUCTION : undefined].filter(Boolean).join('\n\n');
      const messages = req.messages.map((m, i) => {
        const last = i === req.messages.length - 1;
        if (!last || m.role !== 'user' || !req.images?.length) return { role: m.role, content: m.content };
        return {
          role: m.role,
          content: [
            ...req.images.map((img) => ({ type: 'image', source: { type: 'base64', media_type: img.mediaType, data: img.base64 } })),
            { type: 'text', text: m.content },
          ],
        };
      });
      const body = {
        model: req.model,
        max_tokens: req.maxTokens,
        messages,
        ...(system ? { system } : {}),
        ...(req.temperature !== undefined ? { temperature: req.temperature } : {}),
      };
      const json = (await postJson('anthropic', `${base}/v1/messages`, { 'x-api-key': o.apiKey, 'anthropic-version': o.version ?? '2023-06-01' }, body, o.timeoutMs ?? 60_000)) as {
        model?: string;
        content?: Array<{ type: string; text?: string }>;
        usage?: { input_tokens?: number; output_tokens?: number };
      };
      const content = need('anthropic', json.content, 'content');
      const usage = need('anthropic', json.usage, 'usage');
      return {
        text: content.filter((c) => c.type === 'text').map((c) => c.text ?? '').join(''),
        inputTokens: usage.input_tokens ?? 0,
        outputTokens: usage.output_tokens ?? 0,
        model: json.model ?? req.model,
      };
    },
  };
}
