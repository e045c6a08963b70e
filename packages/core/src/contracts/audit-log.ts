import { z } from 'zod';
import { IsoDateTime, JsonObject, ListQuery, Uuid } from './common.ts';

/** One audit-log entry (audit_logs). */
export const AuditLogSchema = z.object({
  id: Uuid.describe('Entry id'),
  organization_id: Uuid.describe('Organization the action happened in'),
  user_id: z.string().max(255).describe('Identity-provider id of the acting user (or the API key id for agent calls)'),
  action: z.string().max(50).describe('What was done, e.g. project.create'),
  resource: z.string().max(100).describe('What it was done to, e.g. projects/<id>'),
  metadata: JsonObject.describe('Extra detail about the action'),
  timestamp: IsoDateTime.describe('When the action happened'),
});
export type AuditLog = z.output<typeof AuditLogSchema>;

/** GET /api/audit-logs query. */
export const AuditLogQuery = ListQuery.extend({
  action: z.string().min(1).max(50).optional().describe('Only entries with this action'),
  resource: z.string().min(1).max(100).optional().describe('Only entries about this resource'),
});
export type AuditLogQuery = z.output<typeof AuditLogQuery>;
