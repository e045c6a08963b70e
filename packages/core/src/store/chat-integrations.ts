import type { ChatIntegration } from '../contracts/chat-integration.ts';
import type { Item } from '../ports/table.ts';
import { keys, stripLayout } from './keys.ts';
import { queryAll, queryPage, type StoreContext } from './context.ts';
import type { StoredSecret } from './secret-fields.ts';
import { updateSealed } from './sealed-update.ts';

/** An integration as stored: the contract's fields plus the app's signing secret, sealed (never returned). */
export type StoredChatIntegration = Omit<ChatIntegration, 'signing_secret_set'> & { signing_secret: StoredSecret };
/** An integration's secrets, opened. */
export interface ChatIntegrationSecrets {
  signing_secret: string;
}
export type NewChatIntegration = Omit<ChatIntegration, 'id' | 'created_at' | 'updated_at' | 'signing_secret_set'> & ChatIntegrationSecrets;
export type ChatIntegrationPatch = Partial<Pick<ChatIntegration, 'project_id' | 'team_id' | 'allowed_user_ids' | 'enabled' | 'signing_secret_hint'>> & { signing_secret?: string };

/** The attributes sealed at rest (docs/decisions.md, Secrets at rest: adding one is adding it here and to the types). */
const SECRET_FIELDS = ['signing_secret'] as const satisfies readonly (keyof ChatIntegrationSecrets)[];

const pick = (i: object): Record<string, string | null> => Object.fromEntries(SECRET_FIELDS.map((f) => [f, ((i as Record<string, unknown>)[f] ?? null) as string | null]));
const fromItem = (item: Item) => stripLayout<StoredChatIntegration & { organization_id: string }>(item);
const withoutOrg = ({ organization_id: _o, ...i }: StoredChatIntegration & { organization_id?: string }): StoredChatIntegration => i;
const teamIndex = (orgId: string, i: Pick<ChatIntegration, 'id' | 'provider' | 'team_id'>) => ({ gsi2pk: keys.chatIntegrationsOfTeam(i.provider, i.team_id), gsi2sk: `${orgId}#${i.id}` });

/**
 * chat_integrations. An integration lives in its organization's partition and is found
 * by workspace on gsi2 (a slash command names a workspace, not an organization); one
 * that takes any workspace is under the `*` bucket, read for every command.
 */
export function chatIntegrationsRepo(ctx: StoreContext) {
  const { table } = ctx;
  return {
    async create(orgId: string, input: NewChatIntegration): Promise<StoredChatIntegration> {
      const now = ctx.clock.now().toISOString();
      const id = ctx.newId();
      const key = keys.chatIntegration(orgId, id);
      const sealed = await ctx.secrets.seal(orgId, key, pick(input));
      const integration = { ...input, ...sealed, id, created_at: now, updated_at: now } as StoredChatIntegration;
      await table.put({ ...key, entity: 'chat_integration', organization_id: orgId, ...teamIndex(orgId, integration), ...integration }, { kind: 'notExists' });
      return integration;
    },

    async get(orgId: string, id: string): Promise<StoredChatIntegration | undefined> {
      const item = await table.get(keys.chatIntegration(orgId, id));
      return item ? withoutOrg(fromItem(item)) : undefined;
    },

    async list(orgId: string, opts: { limit: number; cursor?: string }) {
      const page = await queryPage<StoredChatIntegration & { organization_id?: string }>(table, { pk: `ORG#${orgId}`, skPrefix: 'CHATINT#', limit: opts.limit, cursor: opts.cursor, descending: true });
      return { ...page, items: page.items.map(withoutOrg) };
    },

    /** The integrations that may own a command from this workspace, in any organization: those naming it, and those taking any workspace. */
    async candidates(provider: string, teamId: string): Promise<Array<{ organizationId: string; integration: StoredChatIntegration }>> {
      const [named, any] = await Promise.all([teamId, null].map((t) => queryAll(table, { index: 'gsi2', pk: keys.chatIntegrationsOfTeam(provider, t) })));
      return [...named, ...any].map(fromItem).map((i) => ({ organizationId: i.organization_id, integration: withoutOrg(i) }));
    },

    /** A secret still in plaintext (written by hand, or restored) is sealed by any update. */
    async update(orgId: string, id: string, patch: ChatIntegrationPatch): Promise<StoredChatIntegration | undefined> {
      const set: Record<string, unknown> = { ...Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)), updated_at: ctx.clock.now().toISOString() };
      const item = await updateSealed(ctx, orgId, keys.chatIntegration(orgId, id), SECRET_FIELDS, (current) =>
        patch.team_id !== undefined ? { ...set, ...teamIndex(orgId, { ...fromItem(current), team_id: patch.team_id }) } : set,
      );
      return item && withoutOrg(fromItem(item));
    },

    /** An integration's secrets, opened (SECRET_UNREADABLE when one does not open). */
    secrets(orgId: string, integration: StoredChatIntegration): Promise<ChatIntegrationSecrets> {
      return ctx.secrets.open(orgId, keys.chatIntegration(orgId, integration.id), pick(integration)) as unknown as Promise<ChatIntegrationSecrets>;
    },

    async delete(orgId: string, id: string): Promise<StoredChatIntegration | undefined> {
      const current = await this.get(orgId, id);
      if (!current) return undefined;
      await table.delete(keys.chatIntegration(orgId, id));
      return current;
    },
  };
}
