import type { RunSummary, StepResult, TestExecutionResult } from '@svc/core/execution/types';

/**
 * A realistic run for the report tests: every status, a locator failure with diagnostics,
 * an API assertion failure, a heal, a skipped DB test, and hostile names — markup, unicode,
 * control characters and a lone surrogate.
 */

/** A valid 1×1 PNG. */
export const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

export const SCRIPT_NAME = '<script>alert(1)</script> search';
export const UNICODE_NAME = 'Пошук — 検索 🔍 café ﬁ';
export const CONTROL_NAME = 'bell\u0007 escape\u001b[31m nul\u0000 lone\uD800 end';

const T0 = Date.parse('2025-03-14T09:26:53.000Z');
const iso = (ms: number) => new Date(T0 + ms).toISOString();

function step(index: number, type: StepResult['type'], description: string, status: StepResult['status'], duration_ms: number, extra: Partial<StepResult> = {}): StepResult {
  return { index, type, description, status, duration_ms, ...extra };
}

function result(partial: Partial<TestExecutionResult> & Pick<TestExecutionResult, 'test_id' | 'name' | 'type' | 'status' | 'steps'>, startMs: number, durationMs: number): TestExecutionResult {
  return {
    started_at: iso(startMs),
    finished_at: iso(startMs + durationMs),
    duration_ms: durationMs,
    assertions_passed: 0,
    assertions_failed: 0,
    screenshots: [],
    console_errors: [],
    failed_requests: [],
    fingerprints: {},
    metadata: {},
    ...partial,
  };
}

export const passedLogin = result(
  {
    test_id: 'login-works',
    name: 'Login works',
    type: 'ui',
    status: 'passed',
    metadata: { suite: 'Checkout suite', browser: 'chromium' },
    assertions_passed: 2,
    screenshots: ['runs/r1/login-works/final.png'],
    steps: [
      step(0, 'goto', 'goto "/login"', 'passed', 412),
      step(1, 'fill', 'fill label=Email with "ann@example.com"', 'passed', 88),
      step(2, 'click', 'click role=button[name="Sign in"]', 'passed', 140),
      step(3, 'assert', 'assert url contains "/dashboard"', 'passed', 35),
      step(4, 'screenshot', 'screenshot "final"', 'passed', 120, { screenshot: 'runs/r1/login-works/final.png' }),
    ],
  },
  0,
  1234,
);

export const failedAtLocator = result(
  {
    test_id: 'checkout-buy',
    name: 'Checkout | buy `now`',
    type: 'ui',
    status: 'failed',
    metadata: { suite: 'Checkout suite' },
    failure_kind: 'locator',
    failed_step: 2,
    error_message: 'No element matches #buy-now (waited 5000 ms)\nLast URL: https://shop.example.test/cart',
    stack_trace: 'StepFailure: No element matches #buy-now\n    at PlaywrightSession.perform (driver.ts:120:11)\n    at runStep (runner.ts:88:5)',
    screenshots: ['runs/r1/checkout-buy/failure.png', 'runs/r1/checkout-buy/missing.png'],
    trace: 'runs/r1/checkout-buy/trace.zip',
    console_errors: ['Uncaught TypeError: cart is undefined'],
    failed_requests: [{ url: 'https://shop.example.test/api/cart?x=1&y=<2>', method: 'POST', failure: 'net::ERR_CONNECTION_REFUSED' }],
    steps: [
      step(0, 'goto', 'goto "/cart"', 'passed', 530),
      step(1, 'click', 'click "#accept-cookies"', 'passed', 61, { name: 'Accept cookies' }),
      step(2, 'click', 'click "#buy-now"', 'failed', 5004, {
        error: { kind: 'locator', message: 'No element matches #buy-now (waited 5000 ms)' },
        screenshot: 'runs/r1/checkout-buy/failure.png',
      }),
      step(3, 'assert', 'assert text "#total" equals "42.00"', 'skipped', 0),
    ],
  },
  1300,
  5720,
);

export const failedAssertion = result(
  {
    test_id: 'api-orders-create',
    name: 'POST /orders returns 201',
    type: 'api',
    status: 'failed',
    failure_kind: 'assertion',
    failed_step: 1,
    error_message: 'expected status 201, got 500 — body: {"error":"<oops> & \'quotes\'"}',
    assertions_passed: 0,
    assertions_failed: 1,
    steps: [
      step(0, 'request', 'POST /api/orders', 'passed', 48),
      step(1, 'assert', 'assert status equals 201', 'failed', 1, { error: { kind: 'assertion', message: 'expected status 201, got 500' } }),
      step(2, 'assert', 'assert json $.id exists', 'skipped', 0),
    ],
  },
  7100,
  51,
);

export const healed = result(
  {
    test_id: 'search-healed',
    name: 'Search finds products',
    type: 'ui',
    status: 'healed',
    assertions_passed: 1,
    steps: [
      step(0, 'goto', 'goto "/"', 'passed', 300),
      step(1, 'fill', 'fill "#q" with "lamp"', 'passed', 2200, { healed: { original: '#q', healed: 'input[name="query"]', confidence: 0.93 } }),
      step(2, 'press', 'press Enter', 'passed', 40),
      step(3, 'assert', 'assert count ".result" min 1', 'passed', 25, { healed: { original: '.result | .item', healed: '[data-testid="result"]', confidence: 0.81 } }),
    ],
  },
  7200,
  2565,
);

export const skippedDb = result(
  {
    test_id: 'db-orders-count',
    name: 'Orders table has rows',
    type: 'db',
    status: 'skipped',
    failure_kind: 'configuration',
    error_message: 'DATABASE_URL is not set for this project',
    steps: [step(0, 'sql', 'sql "SELECT count(*) FROM orders"', 'skipped', 0)],
  },
  9800,
  0,
);

export const scriptNamed = result(
  {
    test_id: 'xss',
    name: SCRIPT_NAME,
    type: 'ui',
    status: 'passed',
    steps: [
      step(0, 'goto', 'goto "/?q=<img src=x onerror=alert(2)>"', 'passed', 200),
      step(1, 'assert', 'assert text "h1" contains "</details><script>alert(3)</script>"', 'passed', 20),
    ],
  },
  9900,
  220,
);

export const unicodeNamed = result(
  {
    test_id: 'unicode',
    name: UNICODE_NAME,
    type: 'ui',
    status: 'passed',
    steps: [step(0, 'fill', 'fill "#q" with "検索 🔍"', 'passed', 77)],
  },
  10_200,
  77,
);

export const controlNamed = result(
  {
    test_id: 'control',
    name: CONTROL_NAME,
    type: 'api',
    status: 'failed',
    failure_kind: 'timeout',
    failed_step: 0,
    error_message: 'timed out\u0008 after 30000 ms\u000c — ]]> and \uFFFF',
    steps: [step(0, 'request', 'GET /slow\u0001', 'failed', 30_000, { error: { kind: 'timeout', message: 'timed out\u0008' } })],
  },
  10_300,
  30_002,
);

export function makeSummary(results: TestExecutionResult[] = [passedLogin, failedAtLocator, failedAssertion, healed, skippedDb, scriptNamed, unicodeNamed, controlNamed]): RunSummary {
  const by = (s: TestExecutionResult['status']) => results.filter((r) => r.status === s).length;
  return {
    run_id: 'run_01JQ7Z3K8X',
    name: 'Nightly <staging> & "prod"',
    base_url: 'https://shop.example.test',
    started_at: iso(0),
    finished_at: iso(40_400),
    duration_ms: 40_400,
    workers: 2,
    total: results.length,
    passed: by('passed'),
    failed: by('failed'),
    skipped: by('skipped'),
    healed: by('healed'),
    results,
  };
}

/** Screenshots available to the HTML report (one key is deliberately missing). */
export const artifacts = new Map<string, Uint8Array>([
  ['runs/r1/login-works/final.png', new Uint8Array(PNG)],
  ['runs/r1/checkout-buy/failure.png', new Uint8Array(PNG)],
]);
