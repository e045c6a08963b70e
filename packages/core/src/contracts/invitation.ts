import { z } from 'zod';
import { Email, IsoDateTime, Uuid } from './common.ts';
import { MemberRole } from './member.ts';

export const invitationStatuses = ['pending', 'accepted', 'revoked', 'expired'] as const;
export const InvitationStatus = z.enum(invitationStatuses).describe('Invitation status: pending, accepted, revoked or expired');

/** An invitation to join an organization. */
export const InvitationSchema = z.object({
  id: Uuid.describe('Invitation id'),
  organization_id: Uuid.describe('Organization the invitee will join'),
  email: z.string().describe('Invitee email address'),
  role: MemberRole.describe('Role the invitee gets on acceptance'),
  status: InvitationStatus,
  invited_by: z.string().describe('Identity-provider id of the inviting user'),
  created_at: IsoDateTime.describe('When the invitation was sent'),
  expires_at: IsoDateTime.describe('When the invitation stops being valid'),
});
export type Invitation = z.output<typeof InvitationSchema>;

/** Invite someone to the organization. */
export const InvitationCreateInput = z.strictObject({
  email: Email.describe('Invitee email address'),
  role: MemberRole.default('member').describe('Role on acceptance (default member)'),
});
export type InvitationCreateInput = z.output<typeof InvitationCreateInput>;
