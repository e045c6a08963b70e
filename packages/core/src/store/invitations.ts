import type { z } from 'zod';
import type { InvitationSchema } from '../contracts/invitation.ts';
import { ConditionFailedError } from '../ports/table.ts';
import { notFound, conflict } from '../errors.ts';
import { keys, stripLayout } from './keys.ts';
import { queryPage, type StoreContext } from './context.ts';

export type Invitation = z.output<typeof InvitationSchema>;

const INVITATION_TTL_SECONDS = 7 * 24 * 3600;

/** Invitations are stored by id under the organization and by token hash for acceptance. */
export function invitationsRepo(ctx: StoreContext) {
  const { table } = ctx;
  return {
    async create(orgId: string, input: { email: string; role: Invitation['role']; invitedBy: string; tokenHash: string }): Promise<Invitation> {
      const now = ctx.clock.now();
      const expiresAtSec = Math.floor(now.getTime() / 1000) + INVITATION_TTL_SECONDS;
      const invitation: Invitation = {
        id: ctx.newId(),
        organization_id: orgId,
        email: input.email.toLowerCase(),
        role: input.role,
        status: 'pending',
        invited_by: input.invitedBy,
        created_at: now.toISOString(),
        expires_at: new Date(expiresAtSec * 1000).toISOString(),
      };
      await table.transact([
        { type: 'put', item: { ...keys.invitation(orgId, invitation.id), entity: 'invitation', token_hash: input.tokenHash, ...invitation } },
        { type: 'put', item: { ...keys.invitationToken(input.tokenHash), organization_id: orgId, invitation_id: invitation.id, expiresAt: expiresAtSec } },
      ]);
      return invitation;
    },

    async list(orgId: string, limit: number, cursor?: string) {
      const page = await queryPage<Invitation & { token_hash?: string }>(table, { pk: `ORG#${orgId}`, skPrefix: 'INVITE#', limit, cursor, descending: true });
      const now = ctx.clock.now().getTime();
      return {
        ...page,
        items: page.items.map(({ token_hash: _t, ...inv }) =>
          inv.status === 'pending' && Date.parse(inv.expires_at) <= now ? { ...inv, status: 'expired' as const } : inv,
        ),
      };
    },

    /** Looks an invitation up by its token; undefined if unknown, used or expired. */
    async findByToken(tokenHash: string): Promise<Invitation | undefined> {
      const ref = await table.get(keys.invitationToken(tokenHash));
      if (!ref) return undefined;
      const item = await table.get(keys.invitation(String(ref.organization_id), String(ref.invitation_id)));
      if (!item) return undefined;
      const { token_hash: _t, ...inv } = stripLayout<Invitation & { token_hash: string }>(item);
      return inv.status === 'pending' ? inv : undefined;
    },

    /** Marks accepted and adds the membership atomically; a second acceptance fails. */
    async accept(tokenHash: string, invitation: Invitation, user: { userId: string; email: string }, memberItem: Record<string, unknown> & { pk: string; sk: string }) {
      try {
        await table.transact([
          { type: 'delete', key: keys.invitationToken(tokenHash), condition: { kind: 'exists' } },
          { type: 'update', update: { key: keys.invitation(invitation.organization_id, invitation.id), set: { status: 'accepted', accepted_by: user.userId }, condition: { kind: 'equals', attr: 'status', value: 'pending' } } },
          { type: 'put', item: memberItem, condition: { kind: 'notExists' } },
        ]);
      } catch (err) {
        if (err instanceof ConditionFailedError) {
          if (err.opIndex === 2) throw conflict('already a member of this organization');
          throw notFound('invitation');
        }
        throw err;
      }
    },

    async revoke(orgId: string, invitationId: string): Promise<Invitation> {
      const item = await table.get(keys.invitation(orgId, invitationId));
      if (!item) throw notFound('invitation');
      const { token_hash: tokenHash, ...inv } = stripLayout<Invitation & { token_hash: string }>(item);
      await table.transact([
        { type: 'update', update: { key: keys.invitation(orgId, invitationId), set: { status: 'revoked' } } },
        { type: 'delete', key: keys.invitationToken(tokenHash) },
      ]);
      return { ...inv, status: 'revoked' };
    },
  };
}
