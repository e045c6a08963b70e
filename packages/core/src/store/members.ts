import { keys, stripLayout } from './keys.ts';
import { memberItem, type Member, type Role } from './organizations.ts';
import { queryAll, queryPage, type StoreContext } from './context.ts';
import { ConditionFailedError } from '../ports/table.ts';
import { conflict, notFound } from '../errors.ts';

export function membersRepo(ctx: StoreContext) {
  const { table } = ctx;
  return {
    async get(orgId: string, userId: string): Promise<Member | undefined> {
      const item = await table.get(keys.member(orgId, userId));
      if (!item) return undefined;
      const member = stripLayout<Member>(item);
      return member.status === 'active' ? member : undefined;
    },

    /** Active memberships of a user across organizations. */
    async listForUser(userId: string): Promise<Member[]> {
      const items = await queryAll(table, { index: 'gsi1', pk: keys.memberByUser(userId), skPrefix: 'MEMBER#' });
      return items.map((i) => stripLayout<Member>(i)).filter((m) => m.status === 'active');
    },

    listForOrganization(orgId: string, limit: number, cursor?: string) {
      return queryPage<Member>(table, { pk: `ORG#${orgId}`, skPrefix: 'MEMBER#', limit, cursor });
    },

    async add(orgId: string, user: { userId: string; email: string }, role: Role): Promise<Member> {
      const member: Member = {
        id: ctx.newId(),
        organization_id: orgId,
        user_id: user.userId,
        email: user.email,
        role,
        status: 'active',
        created_at: ctx.clock.now().toISOString(),
      };
      try {
        await table.put(memberItem(member), { kind: 'notExists' });
      } catch (err) {
        if (err instanceof ConditionFailedError) throw conflict('already a member of this organization');
        throw err;
      }
      return member;
    },

    /** Changes a role; refuses to leave an organization without an admin. */
    async setRole(orgId: string, userId: string, role: Role): Promise<Member> {
      const current = await this.get(orgId, userId);
      if (!current) throw notFound('member');
      if (current.role === 'admin' && role !== 'admin') await assertAnotherAdmin(orgId, userId);
      const item = await table.update({ key: keys.member(orgId, userId), set: { role } });
      return stripLayout<Member>(item);
    },

    async remove(orgId: string, userId: string): Promise<void> {
      const current = await this.get(orgId, userId);
      if (!current) throw notFound('member');
      if (current.role === 'admin') await assertAnotherAdmin(orgId, userId);
      await table.delete(keys.member(orgId, userId));
    },
  };

  async function assertAnotherAdmin(orgId: string, exceptUserId: string) {
    const all = await queryAll(table, { pk: `ORG#${orgId}`, skPrefix: 'MEMBER#' });
    const admins = all.filter((m) => m.role === 'admin' && m.status === 'active' && m.user_id !== exceptUserId);
    if (admins.length === 0) throw conflict('an organization needs at least one admin');
  }
}
