import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { AppError } from '@svc/core/errors';
import type { Logger } from '@svc/core/ports/logger';

/** The one error body: { error: { code, message, details? } }. */
export function errorResponse(c: Context, err: AppError, headers?: Record<string, string>) {
  const body = { error: { code: err.code, message: err.message, ...(err.details !== undefined ? { details: err.details } : {}) } };
  return c.json(body, err.status as 400, headers);
}

/** DynamoDB's limit on nested attribute levels. */
const DYNAMODB_MAX_NESTING = 32;

/** Maps anything thrown to the error body; internals never reach the client. */
export function handleError(logger: Logger) {
  return (err: Error, c: Context) => {
    if (err instanceof AppError) return errorResponse(c, err);
    if (err instanceof HTTPException) {
      const code = err.status === 413 ? 'PAYLOAD_TOO_LARGE' : err.status === 401 ? 'UNAUTHENTICATED' : err.status === 404 ? 'NOT_FOUND' : 'VALIDATION_FAILED';
      return errorResponse(c, new AppError(code, err.message || 'request rejected'));
    }
    // DynamoDB stores at most 32 nested levels: a body under the API's own limit can still
    // be deeper than that once stored. Nothing was written; it is the input's fault.
    if (err.name === 'ValidationException' && /nesting levels have exceeded/i.test(err.message)) {
      return errorResponse(c, new AppError('JSON_TOO_DEEP', `the value nests objects and arrays deeper than the database stores (${DYNAMODB_MAX_NESTING} levels, DynamoDB's limit)`, { max_depth: DYNAMODB_MAX_NESTING }));
    }
    logger.error('unhandled error', { error: err.message, stack: err.stack, path: c.req.path, requestId: c.get('requestId') });
    return errorResponse(c, new AppError('INTERNAL', `internal error (request ${c.get('requestId') ?? 'unknown'})`));
  };
}
