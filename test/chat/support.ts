import type { Store } from '@svc/core/store/index';
import type { Client } from '../support/server.ts';

export interface Seeded {
  projectId: string;
  tests: Record<'login' | 'checkout' | 'search', string>;
  runs: string[];
}

type Outcome = { status: 'passed' | 'failed' | 'healed'; duration_ms: number; error_message?: string; metadata?: Record<string, unknown> };

/**
 * Three tests over three finished runs, oldest first:
 *   run 1: Login passed 1200 ms, Checkout failed 5000 ms, Search passed 300 ms
 *   run 2: Login passed 1500 ms, Checkout passed 4000 ms, Search healed 400 ms
 *   run 3: Login failed 2000 ms, Checkout passed 4500 ms, Search passed 350 ms
 * So: the last run failed Login; Login and Checkout are flaky; Search healed once;
 * Checkout is the slowest.
 */
export async function seedProject(api: Client, store: Store, orgId: string): Promise<Seeded> {
  const project = await api.post('/api/v1/projects', { name: 'Shop', app_url: 'http://127.0.0.1:1' });
  if (project.status !== 201) throw new Error(`project: ${project.status} ${project.text}`);
  const projectId = project.body.id as string;
  const make = async (name: string) => (await api.post('/api/tests', { project_id: projectId, name, type: 'ui' })).body.id as string;
  const tests = { login: await make('Login'), checkout: await make('Checkout'), search: await make('Search') };
  const plan: Array<Record<keyof typeof tests, Outcome>> = [
    { login: { status: 'passed', duration_ms: 1200 }, checkout: { status: 'failed', duration_ms: 5000, error_message: 'Timeout waiting for #pay' }, search: { status: 'passed', duration_ms: 300 } },
    { login: { status: 'passed', duration_ms: 1500 }, checkout: { status: 'passed', duration_ms: 4000 }, search: { status: 'healed', duration_ms: 400, metadata: { healed_selector: '[data-testid=search]', original_selector: '#search' } } },
    { login: { status: 'failed', duration_ms: 2000, error_message: 'expected heading "Welcome"' }, checkout: { status: 'passed', duration_ms: 4500 }, search: { status: 'passed', duration_ms: 350 } },
  ];
  const runs: string[] = [];
  for (const outcomes of plan) {
    const run = await store.testRuns.create(orgId, { project_id: projectId, trigger: 'api', total_tests: 3 });
    await store.testRuns.setStatus(orgId, run.id, 'running', { started_at: new Date().toISOString() });
    for (const [key, o] of Object.entries(outcomes) as Array<[keyof typeof tests, Outcome]>) {
      await store.testRuns.recordResult(orgId, { test_id: tests[key], test_run_id: run.id, status: o.status, duration_ms: o.duration_ms, error_message: o.error_message ?? null, screenshots: [], metadata: o.metadata ?? {} });
    }
    const failed = Object.values(outcomes).filter((o) => o.status === 'failed').length;
    await store.testRuns.setStatus(orgId, run.id, 'completed', { completed_at: new Date().toISOString(), passed_tests: 3 - failed, failed_tests: failed });
    runs.push(run.id);
  }
  return { projectId, tests, runs };
}

/** Parses a text/event-stream body into events. */
export function parseSse(text: string): Array<{ event: string; id: string; data: any }> {
  return text
    .split('\n\n')
    .map((block) => block.split('\n').filter((l) => l && !l.startsWith(':')))
    .filter((lines) => lines.some((l) => l.startsWith('event:')))
    .map((lines) => {
      const field = (name: string) => lines.filter((l) => l.startsWith(`${name}:`)).map((l) => l.slice(name.length + 1).replace(/^ /, '')).join('\n');
      return { event: field('event'), id: field('id'), data: JSON.parse(field('data')) };
    });
}
