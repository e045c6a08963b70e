/**
 * Limits from the spec's "Limits" table, as data. Runtime config may lower (never
 * silently raise) these; schemas use them as bounds and defaults.
 */
export const limits = {
  COST_LIMIT_PER_RUN_USD: 10,
  COST_LIMIT_PER_TEST_USD: 1,
  MAX_ITERATIONS: 50,
  MAX_SCREENSHOTS_PER_RUN: 100,
  SELF_HEAL_CONFIDENCE_THRESHOLD: 0.8,
  SELF_HEAL_MAX_RETRIES: 3,
  BUDGET_ALERT_THRESHOLD: 0.8,
  MODEL_FALLBACK_ENABLED: true,
  RECORDING_UPLOAD_MAX_BYTES: 50 * 1024 * 1024,
  REQUEST_MAX_BYTES: 100 * 1024 * 1024,
  EXECUTION_TIMEOUT_MAX_SECONDS: 600,
  APPROVAL_TIMEOUT_SECONDS: 3600,
  STREAM_KEEPALIVE_SECONDS: 15,
  STREAM_TIMEOUT_SECONDS: 3600,
  HEALING_CACHE_TTL_SECONDS: 7 * 24 * 3600,
  SEMANTIC_SEARCH_MATCH_COUNT: 5,
  SEMANTIC_SEARCH_SIMILARITY_THRESHOLD: 0.7,
  EMBEDDING_DIMENSION: 1536,
  CONSUMER_BATCH_SIZE: 10,
  DLQ_MAX_RETRIES: 3,
  /** Not in the spec: how often a run may re-execute a failed test before it counts (svc's choice, docs/decisions.md). */
  MAX_TEST_RETRIES: 5,
} as const;
