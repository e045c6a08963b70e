import { notFound } from '../errors.ts';
import type { Store } from '../store/index.ts';
import { hintOf, type StoredAutomationIntegration } from '../store/automation-integrations.ts';
import type { AutomationIntegration, AutomationIntegrationCreateInput, AutomationIntegrationUpdateInput } from '../contracts/automation-integration.ts';
import { newWebhookSecret } from '../auth/webhook-secret.ts';

/** An integration as the API shows it: never a secret (current or previous), only the current one's hint. */
export function publicAutomationIntegration(i: StoredAutomationIntegration): AutomationIntegration {
  const { secret: _s, previous_secret: _p, secret_id: _i, ...rest } = i;
  return rest;
}

/** Automation integrations: create (with a new secret, shown once), change, remove (docs/automation.md). */
export function automationIntegrationService({ store }: { store: Store }) {
  /** Every listed project must be the organization's: a scope naming another's would silently act on nothing. */
  async function checkProjects(orgId: string, ids: readonly string[]) {
    for (const id of ids) if (!(await store.projects.get(orgId, id))) throw notFound(`project ${id}`);
  }

  return {
    async create(orgId: string, input: AutomationIntegrationCreateInput, createdBy: string | null) {
      await checkProjects(orgId, input.project_ids);
      // Kept here to be shown once: the store keeps it sealed.
      const secret = newWebhookSecret();
      const integration = await store.automationIntegrations.create(orgId, { ...input, secret, secret_hint: hintOf(secret), created_by: createdBy });
      return { ...publicAutomationIntegration(integration), secret, webhook_path: '/webhooks/automation' as const };
    },

    async get(orgId: string, id: string): Promise<StoredAutomationIntegration> {
      const integration = await store.automationIntegrations.get(orgId, id);
      if (!integration) throw notFound('automation integration');
      return integration;
    },

    async update(orgId: string, id: string, patch: AutomationIntegrationUpdateInput): Promise<AutomationIntegration> {
      await this.get(orgId, id);
      if (patch.project_ids) await checkProjects(orgId, patch.project_ids);
      const updated = await store.automationIntegrations.update(orgId, id, patch);
      if (!updated) throw notFound('automation integration');
      return publicAutomationIntegration(updated);
    },

    /**
     * A new signing secret, shown this once; the current one keeps verifying for
     * `graceHours` so the tool can be updated without a refused event.
     */
    async rotateSecret(orgId: string, id: string, graceHours: number) {
      // Kept here to be shown once: the store keeps it sealed.
      const secret = newWebhookSecret();
      const rotated = await store.automationIntegrations.rotateSecret(orgId, id, secret, graceHours);
      if (!rotated) throw notFound('automation integration');
      return { ...publicAutomationIntegration(rotated), secret };
    },

    async delete(orgId: string, id: string): Promise<AutomationIntegration> {
      const integration = await store.automationIntegrations.delete(orgId, id);
      if (!integration) throw notFound('automation integration');
      return publicAutomationIntegration(integration);
    },
  };
}
