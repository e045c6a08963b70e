import type { DeliveryOutcome } from '../notifications/deliver.ts';
import { keys } from './keys.ts';
import type { StoreContext } from './context.ts';
import type { StoredSecret } from './secret-fields.ts';
import { claimPending } from './claim.ts';

/** What became of a callback: pending until its run ends, then delivered or failed (the receiver's answer kept). */
export type AutomationCallbackStatus = 'pending' | 'sending' | 'delivered' | 'failed';

/** Where an automation event's run posts its outcome. */
export interface AutomationCallback {
  thread_id: string;
  integration_id: string;
  /** The delivery that asked for the run, echoed in the outcome so the tool can match the two. */
  delivery_id: string | null;
  status: AutomationCallbackStatus;
  attempts: number;
  http_status: number | null;
  error: string | null;
  created_at: string;
}

export type NewAutomationCallback = Pick<AutomationCallback, 'thread_id' | 'integration_id' | 'delivery_id'> & { callback_url: string };

/** Kept 30 days: a run may wait long on an approval; the record then says whether the outcome was posted. */
const CALLBACK_TTL_SECONDS = 30 * 24 * 3600;

/**
 * automation_callbacks, keyed by the run's thread (written before the run starts, so a run
 * that ends at once still finds it). The URL is sealed: a Zapier or n8n catch-hook URL is
 * itself a credential. Claimed once (pending → sending) before posting, so a report node
 * that runs again posts once.
 */
export function automationCallbacksRepo(ctx: StoreContext) {
  const { table } = ctx;
  return {
    async record(orgId: string, callback: NewAutomationCallback): Promise<void> {
      const key = keys.automationCallback(orgId, callback.thread_id);
      const now = ctx.clock.now();
      const sealed = await ctx.secrets.seal(orgId, key, { callback_url: callback.callback_url });
      const item: AutomationCallback & { callback_url: StoredSecret } = { ...callback, ...sealed, status: 'pending', attempts: 0, http_status: null, error: null, created_at: now.toISOString() };
      await table.put({ ...key, entity: 'automation_callback', organization_id: orgId, expiresAt: Math.floor(now.getTime() / 1000) + CALLBACK_TTL_SECONDS, ...item });
    },

    async get(orgId: string, threadId: string): Promise<AutomationCallback | undefined> {
      const item = await table.get(keys.automationCallback(orgId, threadId));
      if (!item) return undefined;
      const { thread_id, integration_id, delivery_id, status, attempts, http_status, error, created_at } = item as unknown as AutomationCallback;
      return { thread_id, integration_id, delivery_id, status, attempts, http_status, error, created_at };
    },

    /** Takes a pending callback for posting; false: it was taken before. */
    claim: (orgId: string, threadId: string) => claimPending(table, keys.automationCallback(orgId, threadId)),

    /** The callback URL, opened (SECRET_UNREADABLE when it does not open). */
    async url(orgId: string, threadId: string): Promise<string | undefined> {
      const key = keys.automationCallback(orgId, threadId);
      const item = await table.get(key);
      if (!item) return undefined;
      return (await ctx.secrets.open(orgId, key, { callback_url: item.callback_url as StoredSecret })).callback_url ?? undefined;
    },

    async finish(orgId: string, threadId: string, outcome: DeliveryOutcome): Promise<void> {
      await table.update({ key: keys.automationCallback(orgId, threadId), set: { ...outcome } });
    },
  };
}
