/**
 * One error taxonomy with stable string codes. Domain code throws AppError; the HTTP
 * edge maps `code` to a status and renders `{ error: { code, message, details? } }`.
 * The catalogue is documented in docs/errors.md; keep the two in step.
 */
export const errorStatus = {
  VALIDATION_FAILED: 400,
  MALFORMED_JSON: 400,
  JSON_TOO_DEEP: 400,
  UNAUTHENTICATED: 401,
  INVALID_TOKEN: 401,
  INVALID_CREDENTIALS: 401,
  INVALID_SIGNATURE: 401,
  FORBIDDEN: 403,
  INSUFFICIENT_ROLE: 403,
  INSUFFICIENT_SCOPE: 403,
  ORGANIZATION_REQUIRED: 400,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  PRECONDITION_FAILED: 412,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
  NOT_CONFIGURED: 501,
  UNAVAILABLE: 503,
  SECRET_UNREADABLE: 500,
  INTERNAL: 500,
} as const;

export type ErrorCode = keyof typeof errorStatus;

export interface FieldIssue {
  /** Dotted path into the request body or query, e.g. "steps.0.selector". */
  path: string;
  message: string;
}

export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = 'AppError';
  }
  get status(): number {
    return errorStatus[this.code];
  }
}

export const notFound = (what: string) => new AppError('NOT_FOUND', `${what} not found`);
export const conflict = (message: string, details?: unknown) => new AppError('CONFLICT', message, details);
export const forbidden = (message: string) => new AppError('FORBIDDEN', message);
export const validationFailed = (issues: FieldIssue[]) =>
  new AppError('VALIDATION_FAILED', `Invalid request: ${issues.map((i) => `${i.path || '(body)'}: ${i.message}`).join('; ')}`, { issues });
