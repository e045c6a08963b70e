import { z } from 'zod';
import { IsoDateTime, Uuid } from './common.ts';

import { roles, type Role } from '../auth/roles.ts';

/** Organization roles, lowest first (one list, owned by auth/roles.ts): viewer < member < admin. */
export { roles, type Role };
export const MemberRole = z.enum(roles).describe('Organization role: viewer < member < admin');
export type MemberRole = Role;

export const memberStatuses = ['active', 'invited', 'removed'] as const;
export const MemberStatus = z.enum(memberStatuses).describe('Membership status: active, invited or removed');

/** An organization membership (organization_members). */
export const MemberSchema = z.object({
  id: Uuid.describe('Membership id'),
  organization_id: Uuid.describe('Organization this membership belongs to'),
  user_id: z.string().describe('Identity-provider user id'),
  email: z.string().describe('Member email address'),
  role: MemberRole,
  status: MemberStatus,
  created_at: IsoDateTime.describe('When the membership was created'),
});
export type Member = z.output<typeof MemberSchema>;

/** PATCH a member's role. */
export const MemberRoleUpdateInput = z.strictObject({
  role: MemberRole.describe('New role for the member'),
});
export type MemberRoleUpdateInput = z.output<typeof MemberRoleUpdateInput>;
