import type { z } from 'zod';
import type { UserProfileSchema } from '../contracts/user-profile.ts';
import { ConditionFailedError } from '../ports/table.ts';
import { conflict, notFound } from '../errors.ts';
import { keys, stripLayout } from './keys.ts';
import type { StoreContext } from './context.ts';

export type UserProfile = z.output<typeof UserProfileSchema>;

/**
 * Users of the built-in issuer (profile + password credential + email claim) and
 * profiles of users who arrive with an external issuer's JWT (profile only).
 */
export function usersRepo(ctx: StoreContext) {
  const { table } = ctx;
  return {
    /** Creates profile, email claim and (optionally) credential atomically. */
    async create(input: { userId?: string; email: string; displayName?: string; passwordHash?: string }): Promise<UserProfile> {
      const userId = input.userId ?? ctx.newId();
      const now = ctx.clock.now().toISOString();
      const profile: UserProfile = {
        id: ctx.newId(),
        user_id: userId,
        email: input.email.toLowerCase(),
        display_name: input.displayName ?? input.email.split('@')[0],
        default_organization_id: null,
        onboarding_completed: false,
        created_at: now,
      };
      try {
        await table.transact([
          { type: 'put', item: { ...keys.email(profile.email), user_id: userId }, condition: { kind: 'notExists' } },
          { type: 'put', item: { ...keys.profile(userId), entity: 'user_profile', ...profile }, condition: { kind: 'notExists' } },
          ...(input.passwordHash
            ? [{ type: 'put' as const, item: { ...keys.credential(userId), password_hash: input.passwordHash, updated_at: now } }]
            : []),
        ]);
      } catch (err) {
        if (err instanceof ConditionFailedError) throw conflict('an account with this email already exists', { field: 'email' });
        throw err;
      }
      return profile;
    },

    /**
     * Profile for a user who signed in with an external issuer's JWT: no email claim
     * (the issuer owns identity), created on first sight.
     */
    async ensureProfile(userId: string, email: string | undefined): Promise<UserProfile> {
      const existing = await this.getProfile(userId);
      if (existing) return existing;
      const profile: UserProfile = {
        id: ctx.newId(),
        user_id: userId,
        email: (email ?? '').toLowerCase(),
        display_name: email ? email.split('@')[0] : userId,
        default_organization_id: null,
        onboarding_completed: false,
        created_at: ctx.clock.now().toISOString(),
      };
      try {
        await table.put({ ...keys.profile(userId), entity: 'user_profile', ...profile }, { kind: 'notExists' });
        return profile;
      } catch (err) {
        if (err instanceof ConditionFailedError) return (await this.getProfile(userId))!;
        throw err;
      }
    },

    async getProfile(userId: string): Promise<UserProfile | undefined> {
      const item = await table.get(keys.profile(userId));
      return item ? stripLayout<UserProfile>(item) : undefined;
    },

    async findUserIdByEmail(email: string): Promise<string | undefined> {
      const item = await table.get(keys.email(email));
      return item ? String(item.user_id) : undefined;
    },

    async getPasswordHash(userId: string): Promise<string | undefined> {
      const item = await table.get(keys.credential(userId));
      return item ? String(item.password_hash) : undefined;
    },

    async updateProfile(userId: string, patch: Partial<Pick<UserProfile, 'display_name' | 'default_organization_id' | 'onboarding_completed'>>) {
      const set = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined));
      if (!(await table.get(keys.profile(userId)))) throw notFound('user profile');
      const item = await table.update({ key: keys.profile(userId), set });
      return stripLayout<UserProfile>(item);
    },
  };
}

/**
 * Opaque refresh tokens, stored by hash, expiring through the table's TTL. A token an
 * agent got through the device flow remembers the agent, so its refreshed sessions stay
 * agent sessions.
 */
export function refreshTokensRepo(ctx: StoreContext) {
  const { table } = ctx;
  return {
    async save(hash: string, userId: string, ttlSeconds: number, agent?: { clientId: string; grantId: string }) {
      const expiresAt = Math.floor(ctx.clock.now().getTime() / 1000) + ttlSeconds;
      await table.put({ ...keys.refreshToken(hash), user_id: userId, ...(agent && { agent: agent.clientId, grant: agent.grantId }), expiresAt }, { kind: 'notExists' });
    },
    /** Consumes a token (single use): returns its user (and agent) and deletes it atomically. */
    async consume(hash: string): Promise<{ userId: string; agent?: { clientId: string; grantId: string } } | undefined> {
      const item = await table.get(keys.refreshToken(hash));
      if (!item) return undefined;
      try {
        await table.delete(keys.refreshToken(hash), { kind: 'exists' });
      } catch (err) {
        if (err instanceof ConditionFailedError) return undefined; // raced with another use
        throw err;
      }
      return { userId: String(item.user_id), ...(typeof item.agent === 'string' && typeof item.grant === 'string' && { agent: { clientId: item.agent, grantId: item.grant } }) };
    },
    async revoke(hash: string) {
      await table.delete(keys.refreshToken(hash));
    },
  };
}
