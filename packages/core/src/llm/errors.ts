import { AppError, type ErrorCode } from '../errors.ts';

/**
 * Why an LLM call failed. `retryable` reasons (rate limits, overload, server errors,
 * timeouts, unreachable endpoints) make the router fall back to the next model; the
 * others stop the call, since another attempt would fail the same way or hide a bug.
 */
export const llmErrorReasons = {
  NO_MODEL: { code: 'NOT_CONFIGURED', retryable: false },
  BUDGET_EXCEEDED: { code: 'RATE_LIMITED', retryable: false },
  PROVIDER_AUTH: { code: 'UNAVAILABLE', retryable: false },
  PROVIDER_REJECTED: { code: 'UNAVAILABLE', retryable: false },
  PROVIDER_RATE_LIMITED: { code: 'UNAVAILABLE', retryable: true },
  PROVIDER_OVERLOADED: { code: 'UNAVAILABLE', retryable: true },
  PROVIDER_ERROR: { code: 'UNAVAILABLE', retryable: true },
  PROVIDER_TIMEOUT: { code: 'UNAVAILABLE', retryable: true },
  PROVIDER_UNREACHABLE: { code: 'UNAVAILABLE', retryable: true },
  PROVIDER_BAD_RESPONSE: { code: 'UNAVAILABLE', retryable: true },
} as const satisfies Record<string, { code: ErrorCode; retryable: boolean }>;

export type LlmErrorReason = keyof typeof llmErrorReasons;

/**
 * An AppError with an LLM-specific reason in `details.reason`, so the HTTP edge renders
 * the one error body (NO_MODEL → 501 NOT_CONFIGURED, BUDGET_EXCEEDED → 429, provider
 * failures → 503 UNAVAILABLE) while callers and the router can switch on `reason`.
 * Messages never include API keys or request bodies.
 */
export class LlmError extends AppError {
  constructor(
    readonly reason: LlmErrorReason,
    message: string,
    extra: Record<string, unknown> = {},
  ) {
    super(llmErrorReasons[reason].code, message, { reason, ...extra });
    this.name = 'LlmError';
  }
  get retryable(): boolean {
    return llmErrorReasons[this.reason].retryable;
  }
}

export const noModel = () =>
  new LlmError('NO_MODEL', 'NO_MODEL: no language model is configured; set SVC_LLM_PROVIDERS (see docs/intelligence.md "Models")');

/** Maps a provider's HTTP status to a reason (shared by the fetch-based adapters). */
export function reasonForStatus(status: number): LlmErrorReason {
  if (status === 401 || status === 403) return 'PROVIDER_AUTH';
  if (status === 429) return 'PROVIDER_RATE_LIMITED';
  if (status === 529 || status === 503) return 'PROVIDER_OVERLOADED';
  if (status >= 500) return 'PROVIDER_ERROR';
  return 'PROVIDER_REJECTED';
}
