import type { EventEnvelope } from '../../../packages/core/src/contracts/events.ts';
import type { EventPublisher } from '../../../packages/core/src/ports/events.ts';
import type { Table } from '../../../packages/core/src/ports/table.ts';
import { keys } from '../../../packages/core/src/store/keys.ts';
import { eventSources, testCreated, testFailed } from '../../../packages/core/src/events/producers.ts';

export const uuid = () => crypto.randomUUID();

/** A tenant with one project and one test, written as the store writes them (the keys consumers check). */
export async function seedTenant(table: Table, orgId = uuid()) {
  const projectId = uuid();
  const testId = uuid();
  await table.put({ ...keys.project(orgId, projectId), entity: 'project', id: projectId, organization_id: orgId });
  await table.put({ ...keys.test(orgId, testId), entity: 'test', id: testId, organization_id: orgId, project_id: projectId });
  return { orgId, projectId, testId };
}

export function testCreatedFor(t: { orgId: string; projectId: string; testId: string }, at?: Date): EventEnvelope {
  return testCreated(
    { source: eventSources.api, tenant_id: t.orgId, clock: at ? { now: () => at } : undefined },
    { test_id: t.testId, test_name: 'checkout', test_type: 'ui', project_id: t.projectId, test_spec: { steps: [] } },
  );
}

export function testFailedFor(t: { orgId: string; projectId?: string; testId: string }, message = 'Timeout 3000ms exceeded', at?: Date): EventEnvelope {
  return testFailed(
    { source: eventSources.browserWorker, tenant_id: t.orgId, clock: at ? { now: () => at } : undefined },
    { test_id: t.testId, ...(t.projectId ? { project_id: t.projectId } : {}), failure_details: { error_message: message, failure_type: 'timeout' } },
  );
}

/** The publisher port at the edge of a unit under test: records what was published; can be told to fail. */
export class RecordingPublisher implements EventPublisher {
  readonly events: EventEnvelope[] = [];
  failNext = 0;
  async publish(event: EventEnvelope): Promise<void> {
    if (this.failNext > 0) {
      this.failNext--;
      throw new Error('bus unavailable');
    }
    this.events.push(event);
  }
  ofType(type: string) {
    return this.events.filter((e) => e.event_type === type);
  }
}

/** A controllable clock. */
export function manualClock(start = '2025-03-01T10:00:00Z') {
  let now = new Date(start).getTime();
  return {
    now: () => new Date(now),
    ms: () => now,
    advance(ms: number) {
      now += ms;
    },
  };
}

/** A setTimer that records delays and fires only when told (dlq back-off without sleeping). */
export function recordingTimer() {
  const pending: { fn: () => void; done: boolean }[] = [];
  const delays: number[] = [];
  return {
    delays,
    setTimer: (ms: number, fn: () => void) => {
      const t = { fn, done: false };
      pending.push(t);
      delays.push(ms);
      return () => {
        t.done = true;
      };
    },
    /** Fires every pending timer in order; returns how many fired. */
    fireAll(): number {
      let n = 0;
      for (const t of pending.splice(0)) {
        if (t.done) continue;
        t.done = true;
        t.fn();
        n++;
      }
      return n;
    },
  };
}
