import type { TestCreateInput } from '@svc/core/contracts/test';
import { createEvent } from '@svc/core/contracts/events';
import type { TestRecord } from '@svc/core/store/tests';
import type { AppDeps } from './deps.ts';
import { flowService } from '@svc/core/services/flows';

/**
 * Stores a test and publishes test.created (spec: emission rule 1): POST /api/tests and
 * POST /api/act's save_as_test create tests the same way.
 */
export async function createTest(deps: Pick<AppDeps, 'store' | 'publisher'>, organizationId: string, requestId: string, input: TestCreateInput, changedBy: string): Promise<TestRecord> {
  // A use of an unknown flow, or with the wrong parameters: 400 naming steps.N.flow / steps.N.with.<param>.
  await flowService({ store: deps.store }).checkUses(organizationId, input.project_id, input.steps);
  const test = await deps.store.tests.create(organizationId, { ...input, description: input.description ?? null }, { changed_by: changedBy });
  await deps.publisher.publish(
    createEvent({
      type: 'test.created',
      source: 'svc.api',
      tenant_id: organizationId,
      correlation_id: requestId,
      payload: { test_id: test.id, test_name: test.name, test_type: test.type, project_id: test.project_id, test_spec: { steps: test.steps, assertions: test.assertions, priority: test.priority, tags: test.tags } },
    }),
  );
  return test;
}
