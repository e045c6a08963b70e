import { keys, stripLayout } from './keys.ts';
import { queryAll, queryPage, type StoreContext } from './context.ts';

export interface ChatConversation {
  id: string;
  organization_id: string;
  project_id: string | null;
  /** The user who started it (for API keys, the key's creator). */
  created_by: string;
  title: string;
  message_count: number;
  created_at: string;
  updated_at: string;
}

export interface ChatMessage {
  id: string;
  conversation_id: string;
  role: 'user' | 'assistant';
  content: string;
  /** Assistant messages: how the answer was made (an intent of the deterministic matcher, or "model"). */
  intent: string | null;
  /** Assistant messages: the rows the answer was built from. */
  data: Record<string, unknown> | null;
  model: string | null;
  created_at: string;
}

/**
 * Chat conversations and their messages. A conversation lives under its organization's
 * partition (another tenant's id resolves to nothing); messages have their own
 * partition per conversation, in order (uuidv7 ids sort by time).
 */
export function chatRepo(ctx: StoreContext) {
  const { table } = ctx;
  return {
    async create(orgId: string, input: { projectId: string | null; createdBy: string; title: string }): Promise<ChatConversation> {
      const now = ctx.clock.now().toISOString();
      const conversation: ChatConversation = {
        id: ctx.newId(),
        organization_id: orgId,
        project_id: input.projectId,
        created_by: input.createdBy,
        title: input.title.slice(0, 200),
        message_count: 0,
        created_at: now,
        updated_at: now,
      };
      await table.put({ ...keys.chatConversation(orgId, conversation.id), entity: 'chat_conversation', ...conversation }, { kind: 'notExists' });
      return conversation;
    },

    async get(orgId: string, conversationId: string): Promise<ChatConversation | undefined> {
      const item = await table.get(keys.chatConversation(orgId, conversationId));
      return item ? stripLayout<ChatConversation>(item) : undefined;
    },

    list(orgId: string, limit: number, cursor?: string) {
      return queryPage<ChatConversation>(table, { pk: keys.chatConversation(orgId, '').pk, skPrefix: keys.chatConversation(orgId, '').sk, descending: true, limit, cursor });
    },

    /** Appends a message and bumps the conversation's count in one transaction. */
    async append(orgId: string, conversationId: string, input: Omit<ChatMessage, 'id' | 'conversation_id' | 'created_at'>): Promise<ChatMessage> {
      const message: ChatMessage = { ...input, id: ctx.newId(), conversation_id: conversationId, created_at: ctx.clock.now().toISOString() };
      await table.transact([
        { type: 'put', item: { pk: keys.chatMessages(orgId, conversationId), sk: `MSG#${message.id}`, entity: 'chat_message', ...message }, condition: { kind: 'notExists' } },
        { type: 'update', update: { key: keys.chatConversation(orgId, conversationId), set: { updated_at: message.created_at }, add: { message_count: 1 }, condition: { kind: 'exists' } } },
      ]);
      return message;
    },

    async messages(orgId: string, conversationId: string): Promise<ChatMessage[]> {
      const items = await queryAll(table, { pk: keys.chatMessages(orgId, conversationId), skPrefix: 'MSG#' });
      return items.map((i) => stripLayout<ChatMessage>(i));
    },
  };
}
