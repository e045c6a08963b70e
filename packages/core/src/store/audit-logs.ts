import type { z } from 'zod';
import type { AuditLogSchema } from '../contracts/audit-log.ts';
import { keys } from './keys.ts';
import { queryPage, type StoreContext } from './context.ts';

export type AuditLog = z.output<typeof AuditLogSchema>;

/** Audit entries kept per organization, newest first; kept for this long. */
const AUDIT_RETENTION_SECONDS = 400 * 24 * 3600;

export function auditLogsRepo(ctx: StoreContext) {
  const { table } = ctx;
  return {
    async append(entry: Omit<AuditLog, 'id' | 'timestamp'>): Promise<AuditLog> {
      const now = ctx.clock.now();
      const log: AuditLog = { ...entry, id: ctx.newId(), timestamp: now.toISOString() };
      await table.put({
        pk: keys.auditPartition(entry.organization_id),
        sk: `${log.timestamp}#${log.id}`,
        entity: 'audit_log',
        expiresAt: Math.floor(now.getTime() / 1000) + AUDIT_RETENTION_SECONDS,
        ...log,
      });
      return log;
    },

    async list(orgId: string, opts: { limit: number; cursor?: string; action?: string; resource?: string }) {
      // Filters are applied within the page; callers follow next_cursor for more.
      const page = await queryPage<AuditLog>(table, { pk: keys.auditPartition(orgId), limit: opts.limit, cursor: opts.cursor, descending: true });
      const items = page.items.filter(
        (l) => (!opts.action || l.action === opts.action) && (!opts.resource || l.resource.startsWith(opts.resource)),
      );
      return { items, next_cursor: page.next_cursor };
    },
  };
}
