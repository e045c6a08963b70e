import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { AppError } from '@svc/core/errors';
import type { Logger } from '@svc/core/ports/logger';

/** The one error body: { error: { code, message, details? } }. */
export function errorResponse(c: Context, err: AppError, headers?: Record<string, string>) {
  const body = { error: { code: err.code, message: err.message, ...(err.details !== undefined ? { details: err.details } : {}) } };
  return c.json(body, err.status as 400, headers);
}

/** Maps anything thrown to the error body; internals never reach the client. */
export function handleError(logger: Logger) {
  return (err: Error, c: Context) => {
    if (err instanceof AppError) return errorResponse(c, err);
    if (err instanceof HTTPException) {
      const code = err.status === 413 ? 'PAYLOAD_TOO_LARGE' : err.status === 401 ? 'UNAUTHENTICATED' : err.status === 404 ? 'NOT_FOUND' : 'VALIDATION_FAILED';
      return errorResponse(c, new AppError(code, err.message || 'request rejected'));
    }
    logger.error('unhandled error', { error: err.message, stack: err.stack, path: c.req.path, requestId: c.get('requestId') });
    return errorResponse(c, new AppError('INTERNAL', `internal error (request ${c.get('requestId') ?? 'unknown'})`));
  };
}
