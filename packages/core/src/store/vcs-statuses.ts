import type { VcsProvider, VcsStatusLog } from '../contracts/vcs-integration.ts';
import { ConditionFailedError } from '../ports/table.ts';
import { keys } from './keys.ts';
import { queryPage, type StoreContext } from './context.ts';

/** Which commit a webhook's run tests: the run record has no metadata field, so this sits beside it, keyed by the run's thread. */
export interface VcsRunCommit {
  thread_id: string;
  integration_id: string;
  provider: VcsProvider;
  repository: string;
  commit_sha: string;
  delivery_id: string;
}

/** started: the pending (GitLab running) status; finished: the outcome. Each is posted once per run. */
export type VcsStatusPhase = 'started' | 'finished';

/** Long enough for a run waiting on an approval; the record is only read while its run is unfinished. */
const COMMIT_TTL_SECONDS = 90 * 24 * 3600;
const LOG_TTL_SECONDS = 90 * 24 * 3600;
// Newest first lists a run's outcome above its pending status.
const phaseOrder: Record<VcsStatusPhase, string> = { started: '0-started', finished: '1-finished' };

/**
 * vcs_run_commits and vcs_status_logs (docs/vcs-webhooks.md, Commit statuses). A status is
 * claimed by writing its log item first, conditional on it not existing, so a report node
 * that runs again (a resumed run) posts once — the notifications' rule.
 */
export function vcsStatusesRepo(ctx: StoreContext) {
  const { table } = ctx;
  const expiry = (ttl: number) => Math.floor(ctx.clock.now().getTime() / 1000) + ttl;
  const logKey = (orgId: string, integrationId: string, runId: string, phase: VcsStatusPhase) => ({ pk: keys.vcsStatuses(orgId, integrationId), sk: `${runId}#${phaseOrder[phase]}` });
  return {
    /** Written before the run starts (so it exists however fast the run ends); a redelivery writes the same. */
    async recordCommit(orgId: string, commit: VcsRunCommit): Promise<void> {
      await table.put({ ...keys.vcsRunCommit(orgId, commit.thread_id), entity: 'vcs_run_commit', expiresAt: expiry(COMMIT_TTL_SECONDS), ...commit });
    },

    async commitOf(orgId: string, threadId: string): Promise<VcsRunCommit | undefined> {
      const item = await table.get(keys.vcsRunCommit(orgId, threadId));
      if (!item) return undefined;
      const { thread_id, integration_id, provider, repository, commit_sha, delivery_id } = item as unknown as VcsRunCommit;
      return { thread_id, integration_id, provider, repository, commit_sha, delivery_id };
    },

    /** Claims a run's status of one phase (undefined: it was claimed before) and returns its log id. */
    async claim(orgId: string, integrationId: string, runId: string, phase: VcsStatusPhase, entry: Pick<VcsStatusLog, 'commit_sha' | 'state' | 'description'>): Promise<string | undefined> {
      const id = ctx.newId();
      const log: VcsStatusLog = { id, integration_id: integrationId, run_id: runId, ...entry, status: 'failed', attempts: 0, http_status: null, error: 'not sent yet', created_at: ctx.clock.now().toISOString() };
      try {
        await table.put({ ...logKey(orgId, integrationId, runId, phase), entity: 'vcs_status_log', expiresAt: expiry(LOG_TTL_SECONDS), ...log }, { kind: 'notExists' });
        return id;
      } catch (err) {
        if (err instanceof ConditionFailedError) return undefined;
        throw err;
      }
    },

    async record(orgId: string, integrationId: string, runId: string, phase: VcsStatusPhase, outcome: Pick<VcsStatusLog, 'status' | 'attempts' | 'http_status' | 'error'>): Promise<void> {
      await table.update({ key: logKey(orgId, integrationId, runId, phase), set: outcome });
    },

    /** An integration's commit statuses, newest run first. */
    log(orgId: string, integrationId: string, limit: number, cursor?: string) {
      return queryPage<VcsStatusLog>(table, { pk: keys.vcsStatuses(orgId, integrationId), limit, cursor, descending: true });
    },
  };
}
