import { z } from 'zod';
import { acceptAliases, IsoDateTime, JsonObject, Uuid } from '../contracts/common.ts';

/** POST /api/chat, /api/v1/chat and /api/v1/stream/chat body; `query` is accepted for `message`. */
export const ChatRequest = acceptAliases(
  z.strictObject({
    message: z.string().trim().min(1, 'must not be empty').max(4000).describe('The question, 1-4000 characters (alias: query)'),
    project_id: Uuid.optional().describe('Answer about this project only; default every project of the organization'),
    conversation_id: Uuid.optional().describe('Continue this conversation; omit to start one'),
  }),
  { query: 'message' },
);
export type ChatRequest = z.output<typeof ChatRequest>;

export const chatIntents = ['failed', 'healed', 'flaky', 'test_count', 'last_run', 'slowest', 'search', 'help', 'model'] as const;
export const ChatIntent = z.enum(chatIntents).describe('How the answer was made: an intent of the built-in matcher, search (what semantic search found for a question the matcher did not recognise), help (not understood), or model');

export const ChatReply = z.object({
  conversation_id: Uuid.describe('Conversation the exchange belongs to'),
  message_id: Uuid.describe('Id of the assistant message'),
  answer: z.string().describe('The answer text'),
  intent: ChatIntent,
  data: JsonObject.describe('The stored data the answer was built from (rows and the runs they come from)'),
  model: z.string().nullable().describe('Model that wrote the answer, or null for the built-in answers'),
  usage: z.object({ input_tokens: z.number().int(), output_tokens: z.number().int(), cost_usd: z.number() }).nullable().describe('Tokens and cost of the model call, or null'),
  model_error: z.object({ reason: z.string(), message: z.string() }).optional().describe('Why the model could not answer (the built-in answer was given instead)'),
});
export type ChatReply = z.output<typeof ChatReply>;

export const ChatMessageSchema = z.object({
  id: Uuid,
  conversation_id: Uuid,
  role: z.enum(['user', 'assistant']),
  content: z.string(),
  intent: z.string().nullable(),
  data: JsonObject.nullable(),
  model: z.string().nullable(),
  created_at: IsoDateTime,
});

export const ChatHistory = z.object({
  conversation: z.object({
    id: Uuid,
    project_id: Uuid.nullable(),
    created_by: z.string(),
    title: z.string(),
    message_count: z.number().int(),
    created_at: IsoDateTime,
    updated_at: IsoDateTime,
  }),
  messages: z.array(ChatMessageSchema),
});
