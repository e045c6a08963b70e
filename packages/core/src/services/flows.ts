import { asDefinition, flowKey, type FlowCreateInput, type FlowRecord, type FlowUpdateInput } from '../contracts/flow.ts';
import type { Step } from '../contracts/steps.ts';
import { conflict, notFound, validationFailed } from '../errors.ts';
import { expandSteps, flowIssues } from '../flows/expand-flows.ts';
import type { Store } from '../store/index.ts';
import { FlowNameTaken } from '../store/flows.ts';

/** How many users a 409 names (the rest are counted). */
const NAMED_USERS = 5;

/**
 * Flows of a project through the API (docs/test-format.md, Flows): each change is checked
 * against the project's other flows (uses, parameters, cycles, depth), and a flow that
 * tests or other flows use is neither deleted nor renamed (409 naming them) — rewriting
 * every user would change tests nobody asked to change.
 */
export function flowService(deps: { store: Store }) {
  const { store } = deps;

  async function project(orgId: string, projectId: string) {
    if (!(await store.projects.get(orgId, projectId))) throw notFound('project');
  }

  /** Tests (and other flows) of the project whose steps `use` the flow, by name. */
  async function usersOf(orgId: string, flow: FlowRecord): Promise<string[]> {
    const key = flowKey(flow.name);
    const uses = (steps: Step[]) => steps.some((s) => s.type === 'use' && flowKey(s.flow) === key);
    const tests = (await testsOf(orgId, flow.project_id)).filter((t) => uses(t.steps)).map((t) => `test ${JSON.stringify(t.name)}`);
    const flows = (await store.flows.listAll(orgId, flow.project_id)).filter((f) => f.id !== flow.id && uses(f.steps)).map((f) => `flow ${JSON.stringify(f.name)}`);
    return [...tests, ...flows];
  }

  async function testsOf(orgId: string, projectId: string) {
    const out = [];
    let cursor: string | undefined;
    do {
      const page = await store.tests.list(orgId, { projectId, limit: 200, cursor });
      out.push(...page.items);
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
    return out;
  }

  const usedBy = (what: string, users: string[]) =>
    conflict(`${what}: it is used by ${users.slice(0, NAMED_USERS).join(', ')}${users.length > NAMED_USERS ? ` and ${users.length - NAMED_USERS} more` : ''}`, { used_by: users.slice(0, NAMED_USERS), count: users.length });

  const nameTaken = (name: string) => conflict(`a flow named ${JSON.stringify(name)} already exists in this project (names are unique regardless of case)`, { field: 'name' });

  return {
    /** The project's flows by name, each with how many of its tests use it directly. */
    async list(orgId: string, projectId: string): Promise<Array<FlowRecord & { used_by_tests: number }>> {
      await project(orgId, projectId);
      const [flows, tests] = await Promise.all([store.flows.listAll(orgId, projectId), testsOf(orgId, projectId)]);
      const count = new Map<string, number>();
      for (const t of tests) for (const key of new Set(t.steps.flatMap((s) => (s.type === 'use' ? [flowKey(s.flow)] : [])))) count.set(key, (count.get(key) ?? 0) + 1);
      return flows.map((f) => ({ ...f, used_by_tests: count.get(flowKey(f.name)) ?? 0 }));
    },

    async get(orgId: string, id: string): Promise<FlowRecord> {
      const flow = await store.flows.get(orgId, id);
      if (!flow) throw notFound('flow');
      return flow;
    },

    async create(orgId: string, input: FlowCreateInput, createdBy: string | null): Promise<FlowRecord> {
      await project(orgId, input.project_id);
      const others = (await store.flows.listAll(orgId, input.project_id)).map(asDefinition);
      if (others.some((f) => flowKey(f.name) === flowKey(input.name))) throw nameTaken(input.name);
      const issues = flowIssues({ name: input.name, parameters: input.parameters, steps: input.steps }, others);
      if (issues.length) throw validationFailed(issues);
      try {
        return await store.flows.create(orgId, { project_id: input.project_id, name: input.name, description: input.description ?? null, parameters: input.parameters, steps: input.steps, created_by: createdBy });
      } catch (err) {
        if (err instanceof FlowNameTaken) throw nameTaken(input.name);
        throw err;
      }
    },

    /**
     * A rename of a used flow is refused (409 naming its users); any other change is checked
     * against the project's flows and against each test that uses it (a new required
     * parameter would break them: 409 naming them).
     */
    async update(orgId: string, id: string, patch: FlowUpdateInput): Promise<FlowRecord> {
      const current = await this.get(orgId, id);
      const next = { ...current, ...Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)) } as FlowRecord;
      const all = await store.flows.listAll(orgId, current.project_id);
      const others = all.filter((f) => f.id !== id);
      if (flowKey(next.name) !== flowKey(current.name)) {
        if (others.some((f) => flowKey(f.name) === flowKey(next.name))) throw nameTaken(next.name);
        const users = await usersOf(orgId, current);
        if (users.length) throw usedBy(`flow ${JSON.stringify(current.name)} cannot be renamed`, users);
      }
      const definitions = [...others.map(asDefinition), asDefinition(next)];
      const issues = flowIssues(asDefinition(next), definitions);
      if (issues.length) throw validationFailed(issues);
      if (patch.parameters || patch.steps) {
        const broken = (await testsOf(orgId, current.project_id)).filter((t) => t.steps.some((s) => s.type === 'use' && flowKey(s.flow) === flowKey(current.name)) && !expandSteps(t.steps, definitions).ok);
        if (broken.length) throw usedBy(`this change of flow ${JSON.stringify(current.name)} would break the tests that use it (their use steps no longer fit)`, broken.map((t) => `test ${JSON.stringify(t.name)}`));
      }
      try {
        const updated = await store.flows.update(orgId, id, patch);
        if (!updated) throw notFound('flow');
        return updated;
      } catch (err) {
        if (err instanceof FlowNameTaken) throw nameTaken(next.name);
        throw err;
      }
    },

    async delete(orgId: string, id: string): Promise<FlowRecord> {
      const flow = await this.get(orgId, id);
      const users = await usersOf(orgId, flow);
      if (users.length) throw usedBy(`flow ${JSON.stringify(flow.name)} cannot be deleted`, users);
      await store.flows.delete(orgId, id);
      return flow;
    },

    /**
     * A test's `use` steps checked against its project's flows before it is saved: 400
     * naming `steps.N.flow` / `steps.N.with.<param>`. Steps without `use` cost no read.
     */
    async checkUses(orgId: string, projectId: string, steps: readonly Step[]): Promise<void> {
      if (!steps.some((s) => s.type === 'use')) return;
      const flows = (await store.flows.listAll(orgId, projectId)).map(asDefinition);
      const checked = expandSteps(steps, flows);
      if (!checked.ok) throw validationFailed(checked.issues);
    },
  };
}

export type FlowService = ReturnType<typeof flowService>;
