import { z } from 'zod';
import { Email, IsoDateTime } from './common.ts';

// Spaces count (pass phrases), but a password must have 8 characters that are not spaces.
const Password = z
  .string()
  .min(8, { abort: true })
  .max(256, { abort: true })
  .refine((p) => p.replace(/\s/g, '').length >= 8, 'at least 8 characters that are not spaces')
  .describe('Password, 8-256 characters, at least 8 of them not spaces');

/** POST /api/auth/signup body. */
export const SignUpInput = z.strictObject({
  email: Email.describe('Email address to sign in with'),
  password: Password,
  display_name: z.string().trim().min(1).max(255).optional().describe('Name shown in the dashboard'),
  organization_name: z.string().trim().min(1).max(255).optional().describe('Name of the organization to create for the new user'),
});
export type SignUpInput = z.output<typeof SignUpInput>;

/** POST /api/auth/login body. */
export const LoginInput = z.strictObject({
  email: Email.describe('Email address'),
  password: z.string().min(1).max(256).describe('Password'),
});
export type LoginInput = z.output<typeof LoginInput>;

/** POST /api/auth/refresh body; the refresh token may come from the cookie instead. */
export const RefreshInput = z.strictObject({
  refresh_token: z.string().min(1).max(4096).optional().describe('Refresh token; omit to use the session cookie'),
});
export type RefreshInput = z.output<typeof RefreshInput>;

/** A signed-in session. */
export const AuthSessionSchema = z.object({
  user: z
    .object({
      id: z.string().describe('Identity-provider user id'),
      email: z.string().describe('Email address'),
      display_name: z.string().nullable().describe('Name shown in the dashboard, or null'),
    })
    .describe('The signed-in user'),
  access_token: z.string().describe('JWT to send as Authorization: Bearer'),
  expires_at: IsoDateTime.describe('When the access token expires'),
  refresh_token: z.string().describe('Token to obtain a new access token'),
});
export type AuthSession = z.output<typeof AuthSessionSchema>;

/** What a person sees of an agent's device sign-in before deciding (GET /api/auth/device/{user_code}). */
export const DeviceRequestSchema = z.object({
  user_code: z.string(),
  client_id: z.string().describe('The name the agent gave (self-asserted)'),
  scope: z.string().nullable(),
  status: z.enum(['pending', 'approved', 'denied']),
  created_at: z.string(),
  expires_at: z.string(),
});
export type DeviceRequestView = z.output<typeof DeviceRequestSchema>;
