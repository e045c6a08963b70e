import { ConditionFailedError } from '../ports/table.ts';
import { keys, stripLayout } from './keys.ts';
import { queryAll, type StoreContext } from './context.ts';

/**
 * An agent a person let act as them (an approved device flow): listed to the person, who
 * may revoke it. Every token of the sign-in names its grant, and a token whose grant is
 * gone stops working at once (access tokens included). Kept as long as its refresh token
 * could be used (the table's TTL, extended on every refresh).
 */
export interface AgentGrant {
  id: string;
  user_id: string;
  client_id: string;
  created_at: string;
  /** When the agent last refreshed its token (null: never yet). */
  last_refreshed_at: string | null;
}

export function agentGrantsRepo(ctx: StoreContext) {
  const { table } = ctx;
  const ttlFrom = (seconds: number) => Math.floor(ctx.clock.now().getTime() / 1000) + seconds;
  return {
    async create(userId: string, clientId: string, ttlSeconds: number): Promise<AgentGrant> {
      const grant: AgentGrant = { id: ctx.newId(), user_id: userId, client_id: clientId, created_at: ctx.clock.now().toISOString(), last_refreshed_at: null };
      await table.put({ ...keys.agentGrant(userId, grant.id), entity: 'agent_grant', ...grant, expiresAt: ttlFrom(ttlSeconds) }, { kind: 'notExists' });
      return grant;
    },

    async get(userId: string, grantId: string): Promise<AgentGrant | undefined> {
      const item = await table.get(keys.agentGrant(userId, grantId));
      return item ? stripLayout<AgentGrant>(item) : undefined;
    },

    /** Newest first. */
    async listForUser(userId: string): Promise<AgentGrant[]> {
      const items = await queryAll(table, { pk: keys.agentGrantsOf(userId), skPrefix: 'AGENT#', descending: true });
      return items.map((i) => stripLayout<AgentGrant>(i));
    },

    /** A refresh: the grant lives on as long as the new refresh token; false when it was revoked. */
    async touch(userId: string, grantId: string, ttlSeconds: number): Promise<boolean> {
      try {
        await table.update({ key: keys.agentGrant(userId, grantId), set: { last_refreshed_at: ctx.clock.now().toISOString(), expiresAt: ttlFrom(ttlSeconds) } });
        return true;
      } catch (err) {
        if (err instanceof ConditionFailedError) return false;
        throw err;
      }
    },

    /** False when there was none (already revoked, or never this user's). */
    async revoke(userId: string, grantId: string): Promise<boolean> {
      try {
        await table.delete(keys.agentGrant(userId, grantId), { kind: 'exists' });
        return true;
      } catch (err) {
        if (err instanceof ConditionFailedError) return false;
        throw err;
      }
    },
  };
}
