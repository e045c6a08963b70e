import { notFound, validationFailed } from '../errors.ts';
import type { Store } from '../store/index.ts';
import type { StoredVcsIntegration } from '../store/vcs-integrations.ts';
import type { VcsIntegration, VcsIntegrationCreateInput, VcsIntegrationUpdateInput } from '../contracts/vcs-integration.ts';
import { newWebhookSecret } from '../auth/webhook-secret.ts';

/** An integration as the API shows it: no secret. */
export function publicIntegration(i: StoredVcsIntegration): VcsIntegration {
  const { secret: _s, ...rest } = i;
  return rest;
}

/** Source-control integrations: create (with a new secret, shown once), change, remove (docs/vcs-webhooks.md). */
export function vcsIntegrationService({ store }: { store: Store }) {
  return {
    async create(orgId: string, input: VcsIntegrationCreateInput, createdBy: string | null) {
      if (!(await store.projects.get(orgId, input.project_id))) throw notFound('project');
      // Kept here to be shown once: the store keeps it sealed.
      const secret = newWebhookSecret();
      const integration = await store.vcsIntegrations.create(orgId, { ...input, created_by: createdBy, secret });
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
      const updated = await store.vcsIntegrations.update(orgId, id, patch);
      if (!updated) throw notFound('VCS integration');
      return publicIntegration(updated);
    },

    async delete(orgId: string, id: string): Promise<VcsIntegration> {
      const integration = await store.vcsIntegrations.delete(orgId, id);
      if (!integration) throw notFound('VCS integration');
      return publicIntegration(integration);
    },
  };
}
