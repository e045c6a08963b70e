import type { FlowRecord } from '../contracts/flow.ts';
import { ConditionFailedError, type Item } from '../ports/table.ts';
import { keys, stripLayout } from './keys.ts';
import { queryAll, type StoreContext } from './context.ts';

export type NewFlow = Pick<FlowRecord, 'project_id' | 'name' | 'description' | 'parameters' | 'steps' | 'created_by'>;
export type FlowPatch = Partial<Pick<FlowRecord, 'name' | 'description' | 'parameters' | 'steps'>>;

const fromItem = (item: Item): FlowRecord => {
  const { organization_id: _o, ...f } = stripLayout<FlowRecord & { organization_id: string }>(item);
  return f;
};

/** Thrown when another flow of the project has the name (regardless of case). */
export class FlowNameTaken extends Error {}

/**
 * Flows (shared steps) of a project. A flow lives in its organization's partition (an id
 * from another tenant resolves to nothing), is listed by project on gsi1, and its name is
 * claimed by an item of its own (`FLOWNAME`, lower-cased) written in the same transaction,
 * so two flows of a project can never share a name, even when created at once.
 */
export function flowsRepo(ctx: StoreContext) {
  const { table } = ctx;
  const nameClaim = (orgId: string, f: Pick<FlowRecord, 'project_id' | 'name' | 'id'>) => ({ ...keys.flowName(orgId, f.project_id, f.name), entity: 'flow_name', flow_id: f.id });

  return {
    async create(orgId: string, input: NewFlow): Promise<FlowRecord> {
      const now = ctx.clock.now().toISOString();
      const flow: FlowRecord = { ...input, id: ctx.newId(), created_at: now, updated_at: now };
      try {
        await table.transact([
          { type: 'put', item: nameClaim(orgId, flow), condition: { kind: 'notExists' } },
          { type: 'put', item: { ...keys.flow(orgId, flow.id), entity: 'flow', organization_id: orgId, gsi1pk: keys.flowsOfProject(flow.project_id), gsi1sk: flow.id, ...flow }, condition: { kind: 'notExists' } },
        ]);
      } catch (err) {
        if (err instanceof ConditionFailedError) throw new FlowNameTaken(flow.name);
        throw err;
      }
      return flow;
    },

    async get(orgId: string, id: string): Promise<FlowRecord | undefined> {
      const item = await table.get(keys.flow(orgId, id));
      return item ? fromItem(item) : undefined;
    },

    /** Every flow of a project (a project has few; expansion needs them all), by name. */
    async listAll(orgId: string, projectId: string): Promise<FlowRecord[]> {
      const items = await queryAll(table, { index: 'gsi1', pk: keys.flowsOfProject(projectId) });
      return items.filter((i) => i.organization_id === orgId).map(fromItem).sort((a, b) => a.name.localeCompare(b.name));
    },

    /** Changes a flow; a new name moves its claim in the same transaction. Undefined when there is no such flow. */
    async update(orgId: string, id: string, patch: FlowPatch): Promise<FlowRecord | undefined> {
      const current = await this.get(orgId, id);
      if (!current) return undefined;
      const next: FlowRecord = { ...current, ...Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)), updated_at: ctx.clock.now().toISOString() };
      const renamed = next.name.trim().toLowerCase() !== current.name.trim().toLowerCase();
      try {
        await table.transact([
          ...(renamed
            ? [
                { type: 'delete' as const, key: keys.flowName(orgId, current.project_id, current.name) },
                { type: 'put' as const, item: nameClaim(orgId, next), condition: { kind: 'notExists' as const } },
              ]
            : []),
          { type: 'put', item: { ...keys.flow(orgId, id), entity: 'flow', organization_id: orgId, gsi1pk: keys.flowsOfProject(next.project_id), gsi1sk: id, ...next }, condition: { kind: 'equals', attr: 'updated_at', value: current.updated_at } },
        ]);
      } catch (err) {
        if (err instanceof ConditionFailedError && renamed) throw new FlowNameTaken(next.name);
        throw err;
      }
      return next;
    },

    async delete(orgId: string, id: string): Promise<FlowRecord | undefined> {
      const current = await this.get(orgId, id);
      if (!current) return undefined;
      await table.transact([
        { type: 'delete', key: keys.flow(orgId, id) },
        { type: 'delete', key: keys.flowName(orgId, current.project_id, current.name) },
      ]);
      return current;
    },
  };
}
