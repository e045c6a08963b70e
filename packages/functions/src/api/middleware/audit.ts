import type { MiddlewareHandler } from 'hono';
import type { Store } from '@svc/core/store/index';
import type { Logger } from '@svc/core/ports/logger';
import type { ApiEnv } from '../env.ts';

/**
 * Writes an audit entry for every successful mutation. Handlers describe what they did
 * (c.set('audit', …)); this middleware adds who, where and when after the response
 * status is known, so rejected requests leave no entry.
 */
export function audit(store: Store, logger: Logger): MiddlewareHandler<ApiEnv> {
  return async (c, next) => {
    await next();
    const note = c.get('audit');
    if (!note || c.res.status >= 400) return;
    const principal = c.get('principal');
    const single = note.organizationId ?? c.get('access')?.organizationId;
    const organizationIds = note.organizationIds ?? (single ? [single] : []);
    const userId = note.userId ?? principal?.userId ?? 'anonymous';
    for (const organizationId of organizationIds) {
      try {
        await store.auditLogs.append({
          organization_id: organizationId,
          user_id: userId,
          action: note.action,
          resource: note.resource,
          metadata: {
            ...note.metadata,
            method: c.req.method,
            path: c.req.path,
            request_id: c.get('requestId'),
            ...(principal?.kind === 'apiKey' ? { api_key_id: principal.keyId } : {}),
          },
        });
      } catch (err) {
        // The mutation already happened; losing its audit line is logged loudly, not hidden.
        logger.error('audit log write failed', { error: (err as Error).message, action: note.action, organizationId });
      }
    }
  };
}
