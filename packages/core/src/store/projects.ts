import type { z } from 'zod';
import type { ProjectSchema } from '../contracts/project.ts';
import { notFound } from '../errors.ts';
import { ConditionFailedError } from '../ports/table.ts';
import { keys, stripLayout } from './keys.ts';
import { queryPage, type StoreContext } from './context.ts';

export type Project = z.output<typeof ProjectSchema>;

/** Projects live in their organization's partition: a key never crosses tenants. */
export function projectsRepo(ctx: StoreContext) {
  const { table } = ctx;
  return {
    async create(orgId: string, input: { name: string; app_url?: string | null; repo_url?: string | null; config?: Record<string, unknown> }): Promise<Project> {
      const now = ctx.clock.now().toISOString();
      const project: Project = {
        id: ctx.newId(),
        organization_id: orgId,
        name: input.name,
        app_url: input.app_url ?? null,
        repo_url: input.repo_url ?? null,
        config: input.config ?? {},
        created_at: now,
        updated_at: now,
      };
      await table.put({ ...keys.project(orgId, project.id), entity: 'project', ...project }, { kind: 'notExists' });
      return project;
    },

    async get(orgId: string, projectId: string): Promise<Project | undefined> {
      const item = await table.get(keys.project(orgId, projectId));
      return item ? stripLayout<Project>(item) : undefined;
    },

    list(orgId: string, limit: number, cursor?: string) {
      return queryPage<Project>(table, { pk: `ORG#${orgId}`, skPrefix: 'PROJECT#', limit, cursor, descending: true });
    },

    async update(orgId: string, projectId: string, patch: Partial<Pick<Project, 'name' | 'app_url' | 'repo_url' | 'config'>>): Promise<Project> {
      const set: Record<string, unknown> = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined));
      set.updated_at = ctx.clock.now().toISOString();
      try {
        return stripLayout<Project>(await table.update({ key: keys.project(orgId, projectId), set }));
      } catch (err) {
        if (err instanceof ConditionFailedError) throw notFound('project');
        throw err;
      }
    },
  };
}
