import { z } from 'zod';
import { atLeastOneField, atLeastOneFieldParams, IsoDateTime, Uuid } from './common.ts';

/** The caller's profile (user_profiles; GET /api/v1/users/me). */
export const UserProfileSchema = z.object({
  id: Uuid.describe('Profile id'),
  user_id: z.string().describe('Identity-provider user id (unique)'),
  email: z.string().describe('Email address'),
  display_name: z.string().nullable().describe('Name shown in the dashboard, or null when not set'),
  default_organization_id: Uuid.nullable().describe('Organization selected by default, or null'),
  onboarding_completed: z.boolean().describe('Whether the user finished onboarding'),
  created_at: IsoDateTime.describe('When the profile was created'),
});
export type UserProfile = z.output<typeof UserProfileSchema>;

/** PATCH /api/v1/users/me body: any subset, at least one field. */
export const UserProfileUpdateInput = z
  .strictObject({
    display_name: z.string().trim().min(1).max(255).optional().describe('Name shown in the dashboard, 1-255 characters'),
    default_organization_id: Uuid.nullable().optional().describe('Organization to select by default; null to clear'),
    onboarding_completed: z.boolean().optional().describe('Mark onboarding as completed (or not)'),
  })
  .refine(atLeastOneField, atLeastOneFieldParams);
export type UserProfileUpdateInput = z.output<typeof UserProfileUpdateInput>;
