/**
 * Response bodies in each provider's documented wire format, so the adapters parse
 * what the real services send.
 */

/** Anthropic Messages API response (POST /v1/messages). */
export function anthropicMessage(text: string, usage: { input: number; output: number; cacheWrite?: number; cacheRead?: number } = { input: 12, output: 7 }, model = 'claude-test') {
  return {
    id: 'msg_01XFDUDYJgAACzvnptvVoYEL',
    type: 'message',
    role: 'assistant',
    model,
    content: [{ type: 'text', text }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    // As the API reports a cached prompt: input_tokens is only what follows the last cache marker.
    usage: {
      input_tokens: usage.input,
      output_tokens: usage.output,
      ...(usage.cacheWrite !== undefined || usage.cacheRead !== undefined ? { cache_creation_input_tokens: usage.cacheWrite ?? 0, cache_read_input_tokens: usage.cacheRead ?? 0 } : {}),
    },
  };
}

/** Anthropic error body, e.g. type rate_limit_error / overloaded_error / authentication_error. */
export function anthropicError(type: string, message: string) {
  return { type: 'error', error: { type, message } };
}

/**
 * OpenAI chat completion response (POST /v1/chat/completions). `cached`: the part of the
 * prompt OpenAI read from its prompt cache, which prompt_tokens includes.
 */
export function openAiCompletion(text: string, usage: { prompt: number; completion: number; cached?: number } = { prompt: 20, completion: 9 }, model = 'gpt-test') {
  return {
    id: 'chatcmpl-abc123',
    object: 'chat.completion',
    created: 1_700_000_000,
    model,
    choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
    usage: {
      prompt_tokens: usage.prompt,
      completion_tokens: usage.completion,
      total_tokens: usage.prompt + usage.completion,
      prompt_tokens_details: { cached_tokens: usage.cached ?? 0, audio_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
    },
  };
}

export function openAiError(message: string, type = 'invalid_request_error', code: string | null = null) {
  return { error: { message, type, param: null, code } };
}

/**
 * Bedrock Converse response (POST /model/{modelId}/converse). As Bedrock reports a cached
 * prompt: inputTokens leaves out the cache's tokens, which totalTokens includes.
 */
export function bedrockConverse(text: string, usage: { input: number; output: number; cacheRead?: number; cacheWrite?: number } = { input: 30, output: 11 }) {
  const cached = (usage.cacheRead ?? 0) + (usage.cacheWrite ?? 0);
  return {
    output: { message: { role: 'assistant', content: [{ text }] } },
    stopReason: 'end_turn',
    usage: {
      inputTokens: usage.input,
      outputTokens: usage.output,
      totalTokens: usage.input + cached + usage.output,
      ...(usage.cacheRead !== undefined || usage.cacheWrite !== undefined ? { cacheReadInputTokens: usage.cacheRead ?? 0, cacheWriteInputTokens: usage.cacheWrite ?? 0 } : {}),
    },
    metrics: { latencyMs: 120 },
  };
}

/** Bedrock error: restJson1, the type in x-amzn-errortype and the message in the body. */
export function bedrockError(status: number, type: string, message: string) {
  return { status, headers: { 'x-amzn-errortype': `${type}:http://internal.amazon.com/coral/com.amazon.bedrock/` }, body: { message } };
}
