import { notFound, validationFailed } from '../errors.ts';
import type { Store } from '../store/index.ts';
import type { StoredVcsIntegration } from '../store/vcs-integrations.ts';
import type { VcsIntegration, VcsIntegrationCreateInput, VcsIntegrationUpdateInput } from '../contracts/vcs-integration.ts';
import { newWebhookSecret } from '../auth/webhook-secret.ts';

/** An integration as the API shows it: no secret (current or previous), no token — only whether one is set. */
export function publicIntegration(i: StoredVcsIntegration): VcsIntegration {
  const { secret: _s, previous_secret: _p, secret_id: _i, status_token: token, ...rest } = i;
  return { ...rest, status_token_set: !!token };
}

/** Known token prefixes (GitHub fine-grained, classic, app; GitLab personal/project/group), kept in the hint to say what kind it is. */
const TOKEN_PREFIX = /^(github_pat_|gh[pousr]_|glpat-)/;

/** ghp_…a1b2: enough to tell two tokens apart, computed when the token is set, so showing it never needs the token itself. */
export const tokenHint = (token: string) => `${TOKEN_PREFIX.exec(token)?.[1] ?? ''}…${token.slice(-4)}`;

/** The token and its hint move together; undefined leaves both, null removes both. */
function tokenFields(token: string | null | undefined) {
  if (token === undefined) return {};
  return { status_token: token, status_token_hint: token === null ? null : tokenHint(token) };
}

/** One form for one API base: no trailing slash (paths are appended). */
const apiUrlOf = (url: string | null | undefined) => (typeof url === 'string' ? url.replace(/\/+$/, '') : url);

/** Source-control integrations: create (with a new secret, shown once), change, remove (docs/vcs-webhooks.md). */
export function vcsIntegrationService({ store }: { store: Store }) {
  return {
    async create(orgId: string, input: VcsIntegrationCreateInput, createdBy: string | null) {
      if (!(await store.projects.get(orgId, input.project_id))) throw notFound('project');
      const { status_token: token, api_url: apiUrl, ...fields } = input;
      // Kept here to be shown once: the store keeps it sealed.
      const secret = newWebhookSecret();
      const integration = await store.vcsIntegrations.create(orgId, {
        ...fields,
        created_by: createdBy,
        secret,
        status_token: null,
        status_token_hint: null,
        ...tokenFields(token),
        api_url: apiUrlOf(apiUrl) ?? null,
      });
      return { ...publicIntegration(integration), secret, webhook_path: '/webhooks/vcs' as const };
    },

    async get(orgId: string, id: string): Promise<StoredVcsIntegration> {
      const integration = await store.vcsIntegrations.get(orgId, id);
      if (!integration) throw notFound('VCS integration');
      return integration;
    },

    async update(orgId: string, id: string, patch: VcsIntegrationUpdateInput): Promise<VcsIntegration> {
      const current = await this.get(orgId, id);
      if (patch.repository && current.provider === 'github' && patch.repository.split('/').length !== 2) {
        throw validationFailed([{ path: 'repository', message: 'a GitHub repository is owner/name' }]);
      }
      const { status_token: token, api_url: apiUrl, ...fields } = patch;
      const updated = await store.vcsIntegrations.update(orgId, id, { ...fields, ...tokenFields(token), ...(apiUrl !== undefined ? { api_url: apiUrlOf(apiUrl) } : {}) });
      if (!updated) throw notFound('VCS integration');
      return publicIntegration(updated);
    },

    /**
     * A new webhook secret, shown this once; the current one keeps verifying for
     * `graceHours` so the host's webhook can be updated without a refused delivery.
     */
    async rotateSecret(orgId: string, id: string, graceHours: number) {
      // Kept here to be shown once: the store keeps it sealed.
      const secret = newWebhookSecret();
      const rotated = await store.vcsIntegrations.rotateSecret(orgId, id, secret, graceHours);
      if (!rotated) throw notFound('VCS integration');
      return { ...publicIntegration(rotated), secret };
    },

    async delete(orgId: string, id: string): Promise<VcsIntegration> {
      const integration = await store.vcsIntegrations.delete(orgId, id);
      if (!integration) throw notFound('VCS integration');
      return publicIntegration(integration);
    },
  };
}
