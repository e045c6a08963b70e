import type { TestCreateInput } from '@svc/core/contracts/test';
import { createEvent } from '@svc/core/contracts/events';
import { busEntrySize, MAX_EVENT_BYTES, toBusEntry } from '@svc/core/events/bus-event';
import type { TestRecord } from '@svc/core/store/tests';
import type { AppDeps } from './deps.ts';
import { flowService } from '@svc/core/services/flows';
import { refuseBaselineClashes } from './baseline-clashes.ts';

/**
 * Stores a test and publishes test.created (spec: emission rule 1): POST /api/tests and
 * POST /api/act's save_as_test create tests the same way.
 */
export async function createTest(deps: Pick<AppDeps, 'store' | 'publisher'>, organizationId: string, requestId: string, input: TestCreateInput, changedBy: string): Promise<TestRecord> {
  // A use of an unknown flow, or with the wrong parameters: 400 naming steps.N.flow / steps.N.with.<param>.
  await flowService({ store: deps.store }).checkUses(organizationId, input.project_id, input.steps);
  refuseBaselineClashes(input);
  const test = await deps.store.tests.create(organizationId, { ...input, description: input.description ?? null }, { changed_by: changedBy });
  const event = (testSpec: Record<string, unknown>) =>
    createEvent({
      type: 'test.created',
      source: 'svc.api',
      tenant_id: organizationId,
      correlation_id: requestId,
      payload: { test_id: test.id, test_name: test.name, test_type: test.type, project_id: test.project_id, test_spec: testSpec },
    });
  const spec = { steps: test.steps, assertions: test.assertions, priority: test.priority, tags: test.tags };
  let created = event(spec);
  // A test may be far larger than a bus entry (256 KB). The test is stored
  // either way; its event then says so and carries the rest, and consumers read the test by id.
  if (busEntrySize(toBusEntry(created)) > MAX_EVENT_BYTES) {
    created = event({ priority: test.priority, tags: test.tags, step_count: test.steps.length, assertion_count: test.assertions.length, steps_omitted: 'too large for an event; read the test by test_id (GET /api/tests/{id})' });
  }
  await deps.publisher.publish(created);
  return test;
}
