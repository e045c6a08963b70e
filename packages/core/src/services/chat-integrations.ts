import { notFound } from '../errors.ts';
import type { Store } from '../store/index.ts';
import type { StoredChatIntegration } from '../store/chat-integrations.ts';
import type { ChatIntegration, ChatIntegrationCreateInput, ChatIntegrationUpdateInput } from '../contracts/chat-integration.ts';

/** An integration as the API shows it: never the signing secret, only whether one is set and its hint. */
export function publicChatIntegration(i: StoredChatIntegration): ChatIntegration {
  const { signing_secret: secret, ...rest } = i;
  return { ...rest, signing_secret_set: !!secret };
}

/** …a1b2: enough to tell two secrets apart, computed when it is set, so showing it never opens the secret. */
export const signingSecretHint = (secret: string) => `…${secret.slice(-4)}`;

/**
 * Chat integrations: a Slack app's slash command linked to a default project (docs/chatops.md).
 * The signing secret is Slack's (the admin copies it from the app), not made here, so it is
 * given on create and can be replaced after Slack regenerates it.
 */
export function chatIntegrationService({ store }: { store: Store }) {
  async function checkProject(orgId: string, projectId: string) {
    if (!(await store.projects.get(orgId, projectId))) throw notFound('project');
  }

  return {
    async create(orgId: string, input: ChatIntegrationCreateInput, createdBy: string | null) {
      await checkProject(orgId, input.project_id);
      const integration = await store.chatIntegrations.create(orgId, { ...input, signing_secret_hint: signingSecretHint(input.signing_secret), created_by: createdBy });
      return { ...publicChatIntegration(integration), request_path: '/webhooks/chat' as const };
    },

    async get(orgId: string, id: string): Promise<StoredChatIntegration> {
      const integration = await store.chatIntegrations.get(orgId, id);
      if (!integration) throw notFound('chat integration');
      return integration;
    },

    async update(orgId: string, id: string, patch: ChatIntegrationUpdateInput): Promise<ChatIntegration> {
      await this.get(orgId, id);
      if (patch.project_id) await checkProject(orgId, patch.project_id);
      const updated = await store.chatIntegrations.update(orgId, id, { ...patch, ...(patch.signing_secret ? { signing_secret_hint: signingSecretHint(patch.signing_secret) } : {}) });
      if (!updated) throw notFound('chat integration');
      return publicChatIntegration(updated);
    },

    async delete(orgId: string, id: string): Promise<ChatIntegration> {
      const integration = await store.chatIntegrations.delete(orgId, id);
      if (!integration) throw notFound('chat integration');
      return publicChatIntegration(integration);
    },
  };
}
