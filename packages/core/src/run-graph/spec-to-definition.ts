import { TestDefinition, MAX_TEST_TIMEOUT_MS } from '../contracts/steps.ts';
import type { TestSpec } from '../contracts/test-spec.ts';

/** What a test file carries beyond the TestSpec (the CLI's tests): its own timeout and {{parameters}}. */
export interface TestExtras {
  timeout_ms?: number;
  parameters?: Record<string, string | number | boolean>;
}

const typeFor = { UI: 'ui', E2E: 'ui', API: 'api', INTEGRATION: 'db' } as const;

/**
 * A planned test (TestSpec) as the runner's TestDefinition. The spec's execution timeout
 * (10 minutes) caps timeout_seconds. A test the runner cannot run says why.
 */
export function definitionOf(spec: TestSpec, extra: TestExtras = {}): { ok: true; definition: TestDefinition } | { ok: false; message: string } {
  if (spec.type === 'UNIT') return { ok: false, message: 'UNIT tests are not executable by the run graph (it runs UI, API and database tests)' };
  if (!spec.steps.length) return { ok: false, message: 'the test has no steps' };
  const parsed = TestDefinition.safeParse({
    name: spec.name.slice(0, 255),
    type: typeFor[spec.type],
    priority: spec.priority.toLowerCase(),
    tags: spec.tags.slice(0, 50),
    timeout_ms: Math.max(1000, Math.min(extra.timeout_ms ?? spec.timeout_seconds * 1000, MAX_TEST_TIMEOUT_MS)),
    parameters: extra.parameters ?? {},
    steps: spec.steps,
    assertions: spec.assertions,
  });
  if (!parsed.success) return { ok: false, message: `the test is not valid: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(test)'}: ${i.message}`).join('; ')}` };
  return { ok: true, definition: parsed.data };
}
