import { keys } from './keys.ts';
import type { StoreContext } from './context.ts';
import type { StoredSecret } from './secret-fields.ts';
import { claimPending } from './claim.ts';

/** What became of a reply: pending until its run ends, then delivered, failed (Slack's answer kept) or expired (the run outlived the response_url). */
export type ChatReplyStatus = 'pending' | 'sending' | 'delivered' | 'failed' | 'expired';

/** Where a chat command's run reports its outcome: the command's response_url, valid until `valid_until`. */
export interface ChatRunReply {
  thread_id: string;
  integration_id: string;
  /** The Slack user who typed the command, named in the outcome. */
  user_id: string;
  channel_id: string | null;
  /** Slack says a response_url takes messages for 30 minutes after the command. */
  valid_until: string;
  status: ChatReplyStatus;
  attempts: number;
  http_status: number | null;
  error: string | null;
  created_at: string;
}

export type NewChatRunReply = Pick<ChatRunReply, 'thread_id' | 'integration_id' | 'user_id' | 'channel_id' | 'valid_until'> & { response_url: string };

/** Kept a week: long enough for a run that waits on an approval to find it (and be logged as expired), short enough to hold no stale URLs. */
const REPLY_TTL_SECONDS = 7 * 24 * 3600;

/**
 * chat_run_replies, keyed by the run's thread (written before the run starts, so a run
 * that ends at once still finds it). The response_url is sealed: for its 30 minutes it
 * lets whoever holds it post into the channel. Claimed once (pending → sending) before
 * posting, so a report node that runs again posts once.
 */
export function chatRepliesRepo(ctx: StoreContext) {
  const { table } = ctx;
  return {
    async record(orgId: string, reply: NewChatRunReply): Promise<void> {
      const key = keys.chatRunReply(orgId, reply.thread_id);
      const now = ctx.clock.now();
      const sealed = await ctx.secrets.seal(orgId, key, { response_url: reply.response_url });
      const item: ChatRunReply & { response_url: StoredSecret } = { ...reply, ...sealed, status: 'pending', attempts: 0, http_status: null, error: null, created_at: now.toISOString() };
      await table.put({ ...key, entity: 'chat_run_reply', organization_id: orgId, expiresAt: Math.floor(now.getTime() / 1000) + REPLY_TTL_SECONDS, ...item });
    },

    async get(orgId: string, threadId: string): Promise<ChatRunReply | undefined> {
      const item = await table.get(keys.chatRunReply(orgId, threadId));
      if (!item) return undefined;
      const { thread_id, integration_id, user_id, channel_id, valid_until, status, attempts, http_status, error, created_at } = item as unknown as ChatRunReply;
      return { thread_id, integration_id, user_id, channel_id, valid_until, status, attempts, http_status, error, created_at };
    },

    /** Takes a pending reply for posting (or for marking expired); false: it was taken before. */
    claim: (orgId: string, threadId: string) => claimPending(table, keys.chatRunReply(orgId, threadId)),

    /** The response_url, opened (SECRET_UNREADABLE when it does not open). */
    async responseUrl(orgId: string, threadId: string): Promise<string | undefined> {
      const key = keys.chatRunReply(orgId, threadId);
      const item = await table.get(key);
      if (!item) return undefined;
      const opened = await ctx.secrets.open(orgId, key, { response_url: item.response_url as StoredSecret });
      return opened.response_url ?? undefined;
    },

    async finish(orgId: string, threadId: string, outcome: Pick<ChatRunReply, 'status' | 'attempts' | 'http_status' | 'error'>): Promise<void> {
      await table.update({ key: keys.chatRunReply(orgId, threadId), set: outcome });
    },
  };
}
