import { z } from 'zod';
import { IsoDateTime, Uuid } from './common.ts';
import type { ApiKeyScope as AuthApiKeyScope } from '../auth/api-keys.ts';

// The scope list is owned by auth/api-keys.ts (which needs node:crypto, so it is not
// imported at runtime here: contracts stay loadable in a browser). The two checks below
// fail to compile if the lists drift apart.
const scopes = ['read', 'write', 'admin'] as const;
type _SameScopes = [AuthApiKeyScope] extends [(typeof scopes)[number]]
  ? [(typeof scopes)[number]] extends [AuthApiKeyScope] ? true : never
  : never;
const _sameScopes: _SameScopes = true;
void _sameScopes;

/** API key scopes (spec Authentication rule 4): read, write, admin. */
export const ApiKeyScope = z.enum(scopes).describe('API key scope: read (viewer), write (member) or admin');
export type ApiKeyScope = z.output<typeof ApiKeyScope>;

/** Public view of an API key. The key itself is shown once at creation; only its hash is stored and it is never returned. */
export const ApiKeySchema = z.object({
  id: Uuid.describe('API key id'),
  organization_id: Uuid.describe('Organization the key acts for'),
  project_id: Uuid.nullable().describe('Project the key is restricted to, or null for the whole organization'),
  name: z.string().describe('Human-readable name'),
  prefix: z.string().describe('First characters of the key (starting svc_sk_), to recognise it'),
  permissions: z.array(ApiKeyScope).describe('Scopes granted to the key'),
  created_at: IsoDateTime.describe('When the key was created'),
  last_used: IsoDateTime.nullable().describe('When the key was last used, or null'),
  expires_at: IsoDateTime.nullable().describe('When the key stops working, or null for never'),
  revoked_at: IsoDateTime.nullable().describe('When the key was revoked, or null'),
});
export type ApiKey = z.output<typeof ApiKeySchema>;

/** POST /api/api-keys body. */
export const ApiKeyCreateInput = z.strictObject({
  name: z.string().trim().min(1).max(100).describe('Human-readable name, 1-100 characters'),
  permissions: z
    .array(ApiKeyScope)
    .min(1)
    .refine((p) => new Set(p).size === p.length, { message: 'permissions must not repeat' })
    .default(['read'])
    .describe('Scopes to grant, non-empty and without repeats (default ["read"])'),
  project_id: Uuid.optional().describe('Not issued yet (400): a key restricted to one project is refused until every route enforces the restriction'),
  expires_at: IsoDateTime.refine((v) => Date.parse(v) > Date.now(), { message: 'must be in the future' })
    .optional()
    .describe('When the key stops working (must be in the future); omit for never'),
});
export type ApiKeyCreateInput = z.output<typeof ApiKeyCreateInput>;

/** Response to key creation: the public view plus the full key, shown this once only. */
export const ApiKeyCreatedSchema = ApiKeySchema.extend({
  key: z.string().describe('The full API key (svc_sk_...). Shown only in this response; store it now'),
});
export type ApiKeyCreated = z.output<typeof ApiKeyCreatedSchema>;
