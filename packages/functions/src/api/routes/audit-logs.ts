import type { Hono } from 'hono';
import { AuditLogSchema, AuditLogQuery } from '@svc/core/contracts/audit-log';
import { listResponse } from '@svc/core/contracts/common';
import type { AppDeps } from '../deps.ts';
import type { ApiEnv } from '../env.ts';
import { mountRoute, type RouteDef } from '../route.ts';

/** Audit logs: admins, dashboard only (spec capability matrix). */
export function auditLogRoutes(app: Hono<ApiEnv>, deps: AppDeps, registry: RouteDef[]) {
  mountRoute(app, deps, registry, {
    method: 'get', path: '/api/audit-logs', summary: 'Audit log of the organization, newest first', tags: ['audit'], auth: 'admin', apiKeys: false,
    query: AuditLogQuery,
    responses: { 200: { description: 'entries', schema: listResponse(AuditLogSchema) } },
  }, async ({ c, query, access }) => c.json(await deps.store.auditLogs.list(access.organizationId, query)));
}
