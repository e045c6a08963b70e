import type { VcsDelivery, VcsIntegration } from '../contracts/vcs-integration.ts';
import { ConditionFailedError, type Item } from '../ports/table.ts';
import { dedupeKey, DEDUPE_TTL_SECONDS } from '../events/dedupe.ts';
import { keys, stripLayout } from './keys.ts';
import { queryAll, queryPage, type StoreContext } from './context.ts';
import type { StoredSecret } from './secret-fields.ts';
import { updateSealed } from './sealed-update.ts';
import { newRotation, rotateSealed, rotationDefaults, signingSecrets, type RotatableSecret } from './secret-rotation.ts';

/**
 * An integration as stored: the contract's fields plus its credentials, sealed — the
 * webhook secret (never returned after creation or rotation), the one a rotation replaced
 * while it still verifies (never returned), and the token for commit statuses (never
 * returned at all; `status_token_set` is derived from it).
 */
export type StoredVcsIntegration = Omit<VcsIntegration, 'status_token_set'> & RotatableSecret & { status_token: StoredSecret | null };
/** An integration's secrets, opened. */
export interface VcsIntegrationSecrets {
  secret: string;
  status_token: string | null;
}
export type NewVcsIntegration = Omit<VcsIntegration, 'id' | 'created_at' | 'updated_at' | 'status_token_set' | 'secret_rotated_at' | 'previous_secret_expires_at'> & VcsIntegrationSecrets;

/**
 * The attributes sealed at rest. A new secret attribute (a status token) is added here and
 * to VcsIntegrationSecrets (and StoredVcsIntegration's type); create and update then seal
 * it and `secrets` opens it.
 */
const SECRET_FIELDS = ['secret', 'status_token'] as const satisfies readonly (keyof VcsIntegrationSecrets)[];
/** Every sealed attribute, for writes: the above and the previous webhook secret kept by a rotation (opened only to verify a delivery). */
const SEALED_FIELDS = [...SECRET_FIELDS, 'previous_secret'] as const;
export type VcsIntegrationPatch = Partial<Pick<VcsIntegration, 'repository' | 'events' | 'branches' | 'tags' | 'healing_enabled' | 'enabled' | 'status_token_hint' | 'api_url' | 'status_context'>> & { status_token?: string | null };
export type NewVcsDelivery = Omit<VcsDelivery, 'id' | 'created_at'>;

/** What a handled delivery came to, kept under its delivery id so a redelivery gets the same answer. */
export interface HandledDelivery {
  outcome: 'started' | 'ignored';
  run_id: string | null;
  project_id: string;
  reason: string | null;
}

const LOG_TTL_SECONDS = 90 * 24 * 3600;

/** The secret attributes of an integration, stored or given (a missing one is null). */
const pick = (i: object): Record<string, string | null> => Object.fromEntries(SECRET_FIELDS.map((f) => [f, ((i as Record<string, unknown>)[f] ?? null) as string | null]));

/** Integrations stored before commit statuses existed have none of their fields: no token, the host's public API, context svc. */
const statusDefaults = { status_token: null, status_token_hint: null, api_url: null, status_context: 'svc' };
const fromItem = (item: Item): StoredVcsIntegration & { organization_id: string } => ({ ...statusDefaults, ...rotationDefaults, ...stripLayout<StoredVcsIntegration & { organization_id: string }>(item) });
const withoutOrg = ({ organization_id: _o, ...i }: StoredVcsIntegration & { organization_id?: string }): StoredVcsIntegration => i;
const repositoryIndex = (orgId: string, i: Pick<VcsIntegration, 'id' | 'provider' | 'repository'>) => ({ gsi2pk: keys.vcsIntegrationsOfRepository(i.provider, i.repository), gsi2sk: `${orgId}#${i.id}` });

/**
 * vcs_integrations, their delivery logs and the record of handled deliveries. An
 * integration lives in its organization's partition, is listed by project on gsi1 and
 * found by repository on gsi2 (a webhook names a repository, not an organization). The
 * handled-delivery record is the events' de-duplication item (events/dedupe.ts: one key
 * per consumer and id, 14 days), keyed by the host's delivery id.
 */
export function vcsIntegrationsRepo(ctx: StoreContext) {
  const { table } = ctx;
  return {
    async create(orgId: string, input: NewVcsIntegration): Promise<StoredVcsIntegration> {
      const now = ctx.clock.now().toISOString();
      const id = ctx.newId();
      const key = keys.vcsIntegration(orgId, id);
      const sealed = await ctx.secrets.seal(orgId, key, pick(input));
      const integration = { ...input, ...sealed, ...newRotation(), id, created_at: now, updated_at: now } as StoredVcsIntegration;
      await table.put(
        { ...key, entity: 'vcs_integration', organization_id: orgId, gsi1pk: keys.vcsIntegrationsOfProject(integration.project_id), gsi1sk: integration.id, ...repositoryIndex(orgId, integration), ...integration },
        { kind: 'notExists' },
      );
      return integration;
    },

    async get(orgId: string, id: string): Promise<StoredVcsIntegration | undefined> {
      const item = await table.get(keys.vcsIntegration(orgId, id));
      return item ? withoutOrg(fromItem(item)) : undefined;
    },

    async list(orgId: string, opts: { projectId?: string; limit: number; cursor?: string }) {
      const page = opts.projectId
        ? await queryPage<StoredVcsIntegration & { organization_id?: string }>(table, { index: 'gsi1', pk: keys.vcsIntegrationsOfProject(opts.projectId), limit: opts.limit, cursor: opts.cursor, descending: true })
        : await queryPage<StoredVcsIntegration & { organization_id?: string }>(table, { pk: `ORG#${orgId}`, skPrefix: 'VCSINT#', limit: opts.limit, cursor: opts.cursor, descending: true });
      return { ...page, items: page.items.map(withoutOrg) };
    },

    /** Every integration of a repository, in any organization (a handful at most). */
    async byRepository(provider: string, repository: string): Promise<Array<{ organizationId: string; integration: StoredVcsIntegration }>> {
      const items = await queryAll(table, { index: 'gsi2', pk: keys.vcsIntegrationsOfRepository(provider, repository) });
      return items.map(fromItem).map((i) => ({ organizationId: i.organization_id, integration: withoutOrg(i) }));
    },

    /** A secret still in plaintext from before encryption at rest is sealed by any update. */
    async update(orgId: string, id: string, patch: VcsIntegrationPatch): Promise<StoredVcsIntegration | undefined> {
      const set: Record<string, unknown> = { ...Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)), updated_at: ctx.clock.now().toISOString() };
      const item = await updateSealed(ctx, orgId, keys.vcsIntegration(orgId, id), SEALED_FIELDS, (current) =>
        patch.repository ? { ...set, ...repositoryIndex(orgId, { ...fromItem(current), repository: patch.repository }) } : set,
      );
      return item && withoutOrg(fromItem(item));
    },

    /**
     * A new webhook secret; the current one keeps verifying for `graceHours` (0: not kept),
     * replacing any previous one (docs/vcs-webhooks.md, rotating the secret).
     */
    async rotateSecret(orgId: string, id: string, secret: string, graceHours: number): Promise<StoredVcsIntegration | undefined> {
      const item = await rotateSealed(ctx, orgId, keys.vcsIntegration(orgId, id), SEALED_FIELDS, { secret, graceHours });
      return item && withoutOrg(fromItem(item));
    },

    /** The secrets a delivery may be signed with now, opened: the current one, and the previous one within its grace period. */
    signingSecrets(orgId: string, integration: StoredVcsIntegration) {
      return signingSecrets(ctx, orgId, keys.vcsIntegration(orgId, integration.id), integration);
    },

    /** An integration's secrets, opened (SECRET_UNREADABLE when one does not open). */
    secrets(orgId: string, integration: StoredVcsIntegration): Promise<VcsIntegrationSecrets> {
      return ctx.secrets.open(orgId, keys.vcsIntegration(orgId, integration.id), pick(integration)) as unknown as Promise<VcsIntegrationSecrets>;
    },

    async delete(orgId: string, id: string): Promise<StoredVcsIntegration | undefined> {
      const current = await this.get(orgId, id);
      if (!current) return undefined;
      await table.delete(keys.vcsIntegration(orgId, id));
      return current;
    },

    /** Appends to an integration's delivery log (kept 90 days). */
    async log(orgId: string, entry: NewVcsDelivery): Promise<VcsDelivery> {
      const now = ctx.clock.now();
      const delivery: VcsDelivery = { ...entry, id: ctx.newId(), created_at: now.toISOString() };
      await table.put({ pk: keys.vcsDeliveries(orgId, entry.integration_id), sk: delivery.id, entity: 'vcs_delivery', expiresAt: Math.floor(now.getTime() / 1000) + LOG_TTL_SECONDS, ...delivery });
      return delivery;
    },

    /** An integration's deliveries, newest first. */
    deliveries(orgId: string, integrationId: string, limit: number, cursor?: string) {
      return queryPage<VcsDelivery>(table, { pk: keys.vcsDeliveries(orgId, integrationId), limit, cursor, descending: true });
    },

    /** What a delivery came to, if this integration handled it before. */
    async handled(integrationId: string, deliveryId: string): Promise<HandledDelivery | undefined> {
      const item = await table.get(dedupeKey(`vcs-webhook:${integrationId}`, deliveryId));
      return item ? { outcome: item.outcome as HandledDelivery['outcome'], run_id: (item.run_id as string | null) ?? null, project_id: item.project_id as string, reason: (item.reason as string | null) ?? null } : undefined;
    },

    /** Records a handled delivery once; false: another request recorded it first. */
    async markHandled(orgId: string, integrationId: string, deliveryId: string, handled: HandledDelivery): Promise<boolean> {
      const now = ctx.clock.now();
      try {
        await table.put(
          { ...dedupeKey(`vcs-webhook:${integrationId}`, deliveryId), entity: 'event_dedupe', consumer: `vcs-webhook:${integrationId}`, event_id: deliveryId, tenant_id: orgId, processed_at: now.toISOString(), expiresAt: Math.floor(now.getTime() / 1000) + DEDUPE_TTL_SECONDS, ...handled },
          { kind: 'notExists' },
        );
        return true;
      } catch (err) {
        if (err instanceof ConditionFailedError) return false;
        throw err;
      }
    },
  };
}
