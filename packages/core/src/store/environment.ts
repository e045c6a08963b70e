import { MAX_ENVIRONMENT_VARIABLES, type EnvironmentVariable } from '../contracts/environment.ts';
import { conflict } from '../errors.ts';
import { keys } from './keys.ts';
import { queryAll, type StoreContext } from './context.ts';

/** What a run of the project reads: plain variables ({{env.NAME}}, DB URLs) and secrets ({{secrets.NAME}}). */
export interface ProjectEnvironment {
  environment: Record<string, string>;
  secrets: Record<string, string>;
}

/**
 * A project's environment variables and secrets, one item each in a partition of their
 * own (so listing projects never reads them). A secret's value is sealed (ctx.secrets,
 * bound to its organization and record) and opened only by `resolve`, for a run; the API
 * never returns it, and listing never opens it. A plain variable is stored as given. A
 * secret written in plaintext before encryption at rest still resolves and is sealed when
 * it is next set.
 */
export function environmentRepo(ctx: StoreContext) {
  const { table } = ctx;
  const all = (orgId: string, projectId: string) => queryAll(table, { pk: keys.environmentOfProject(orgId, projectId) });
  return {
    /** Every variable of the project by name, secrets masked (value null). */
    async list(orgId: string, projectId: string): Promise<EnvironmentVariable[]> {
      return (await all(orgId, projectId)).map((i) => shown(i)).sort((a, b) => a.name.localeCompare(b.name));
    },

    /** Creates or replaces a variable; a project holds at most MAX_ENVIRONMENT_VARIABLES. */
    async set(orgId: string, projectId: string, name: string, input: { value: string; secret: boolean }, userId: string): Promise<EnvironmentVariable> {
      const existing = await all(orgId, projectId);
      if (existing.length >= MAX_ENVIRONMENT_VARIABLES && !existing.some((i) => i.name === name)) {
        throw conflict(`a project holds at most ${MAX_ENVIRONMENT_VARIABLES} environment variables; delete one first`, { field: 'name', limit: MAX_ENVIRONMENT_VARIABLES });
      }
      const key = keys.environmentVariable(orgId, projectId, name);
      const value = input.secret ? (await ctx.secrets.seal(orgId, key, { value: input.value })).value : input.value;
      const item = { ...key, entity: 'environment_variable', name, value, secret: input.secret, updated_at: ctx.clock.now().toISOString(), updated_by: userId };
      await table.put(item);
      return shown(item);
    },

    /** Deletes a variable; false when there was none. */
    async delete(orgId: string, projectId: string, name: string): Promise<boolean> {
      const key = keys.environmentVariable(orgId, projectId, name);
      if (!(await table.get(key))) return false;
      await table.delete(key);
      return true;
    },

    /** The values a run uses, secrets opened (SECRET_UNREADABLE names a secret that does not open). */
    async resolve(orgId: string, projectId: string): Promise<ProjectEnvironment> {
      const out: ProjectEnvironment = { environment: {}, secrets: {} };
      await Promise.all((await all(orgId, projectId)).map(async (i) => {
        if (!i.secret) out.environment[i.name as string] = i.value as string;
        else out.secrets[i.name as string] = (await ctx.secrets.open(orgId, i, { value: i.value })).value ?? '';
      }));
      return out;
    },
  };
}

function shown(i: Record<string, unknown>): EnvironmentVariable {
  return { name: i.name as string, secret: i.secret === true, value: i.secret === true ? null : (i.value as string), updated_at: i.updated_at as string, updated_by: i.updated_by as string };
}

export type EnvironmentRepo = ReturnType<typeof environmentRepo>;
