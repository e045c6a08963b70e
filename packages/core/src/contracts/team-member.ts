import { z } from 'zod';
import { IsoDateTime, Uuid } from './common.ts';
import { MemberRole } from './member.ts';

/** A project-level team membership (team_members). Organization roles live on MemberSchema. */
export const TeamMemberSchema = z.object({
  id: Uuid.describe('Team membership id'),
  project_id: Uuid.describe('Project the member works on'),
  user_id: z.string().max(255).describe('Identity-provider user id'),
  role: MemberRole.describe('Role on the project: viewer, member or admin'),
  invited_at: IsoDateTime.describe('When the user was added'),
});
export type TeamMember = z.output<typeof TeamMemberSchema>;

/** Add a user to a project team. */
export const TeamMemberCreateInput = z.strictObject({
  user_id: z.string().min(1).max(255).describe('Identity-provider user id of an organization member'),
  role: MemberRole.default('member').describe('Role on the project (default member)'),
});
export type TeamMemberCreateInput = z.output<typeof TeamMemberCreateInput>;
