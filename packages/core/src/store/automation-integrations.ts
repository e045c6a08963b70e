import type { AutomationIntegration } from '../contracts/automation-integration.ts';
import { ConditionFailedError, type Item } from '../ports/table.ts';
import { dedupeKey, DEDUPE_TTL_SECONDS } from '../events/dedupe.ts';
import { keys, stripLayout } from './keys.ts';
import { queryAll, queryPage, type StoreContext } from './context.ts';
import { updateSealed } from './sealed-update.ts';
import { newRotation, rotateSealed, rotationDefaults, signingSecrets, type RotatableSecret } from './secret-rotation.ts';

/**
 * An integration as stored: the contract's fields plus its signing secret, sealed (returned
 * once, at creation or rotation), and the one a rotation replaced while it still verifies.
 */
export type StoredAutomationIntegration = AutomationIntegration & RotatableSecret;
export type NewAutomationIntegration = Omit<AutomationIntegration, 'id' | 'created_at' | 'updated_at' | 'secret_rotated_at' | 'previous_secret_expires_at'> & { secret: string };
export type AutomationIntegrationPatch = Partial<Pick<AutomationIntegration, 'name' | 'project_ids' | 'enabled'>>;

/** What a handled delivery answered, kept under its delivery id so a redelivery gets the same answer. */
export interface HandledAutomationDelivery {
  http_status: number;
  answer: Record<string, unknown>;
}

/** The attributes sealed at rest (docs/decisions.md, Secrets at rest). */
const SECRET_FIELDS = ['secret', 'previous_secret'] as const;

const pick = (i: { secret?: unknown }): Record<string, string | null> => ({ secret: (i.secret ?? null) as string | null });
const fromItem = (item: Item): StoredAutomationIntegration & { organization_id: string } => ({ ...rotationDefaults, ...stripLayout<StoredAutomationIntegration & { organization_id: string }>(item) });
const withoutOrg = ({ organization_id: _o, ...i }: StoredAutomationIntegration & { organization_id?: string }): StoredAutomationIntegration => i;
/** The secret's last four characters, shown to tell secrets apart. */
export const hintOf = (secret: string) => `…${secret.slice(-4)}`;
const consumer = (integrationId: string) => `automation-webhook:${integrationId}`;

/** How long a claim on a delivery holds: past the longest test execution (10 minutes), with room. */
export const CLAIM_LEASE_SECONDS = 15 * 60;

/**
 * automation_integrations and the record of the deliveries they handled. An integration
 * lives in its organization's partition and is found by id on gsi2 (an event names its
 * integration, not an organization). A handled delivery is the events' de-duplication
 * item (events/dedupe.ts: one key per consumer and id, 14 days) holding the first answer.
 */
export function automationIntegrationsRepo(ctx: StoreContext) {
  const { table } = ctx;
  return {
    async create(orgId: string, input: NewAutomationIntegration): Promise<StoredAutomationIntegration> {
      const now = ctx.clock.now().toISOString();
      const id = ctx.newId();
      const key = keys.automationIntegration(orgId, id);
      const sealed = await ctx.secrets.seal(orgId, key, pick(input));
      const integration = { ...input, ...sealed, ...newRotation(), id, created_at: now, updated_at: now } as StoredAutomationIntegration;
      await table.put({ ...key, entity: 'automation_integration', organization_id: orgId, gsi2pk: keys.automationIntegrationById(id), gsi2sk: orgId, ...integration }, { kind: 'notExists' });
      return integration;
    },

    async get(orgId: string, id: string): Promise<StoredAutomationIntegration | undefined> {
      const item = await table.get(keys.automationIntegration(orgId, id));
      return item ? withoutOrg(fromItem(item)) : undefined;
    },

    /** The integration an event names, in whichever organization it is (ids are unique: one at most). */
    async byId(id: string): Promise<{ organizationId: string; integration: StoredAutomationIntegration } | undefined> {
      const [item] = await queryAll(table, { index: 'gsi2', pk: keys.automationIntegrationById(id) });
      if (!item) return undefined;
      const found = fromItem(item);
      return { organizationId: found.organization_id, integration: withoutOrg(found) };
    },

    async list(orgId: string, opts: { limit: number; cursor?: string }) {
      const page = await queryPage<StoredAutomationIntegration & { organization_id?: string }>(table, { pk: `ORG#${orgId}`, skPrefix: 'AUTOINT#', limit: opts.limit, cursor: opts.cursor, descending: true });
      return { ...page, items: page.items.map(withoutOrg) };
    },

    /** A secret still in plaintext (written by hand, or restored) is sealed by any update. */
    async update(orgId: string, id: string, patch: AutomationIntegrationPatch): Promise<StoredAutomationIntegration | undefined> {
      const set: Record<string, unknown> = { ...Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)), updated_at: ctx.clock.now().toISOString() };
      const item = await updateSealed(ctx, orgId, keys.automationIntegration(orgId, id), SECRET_FIELDS, () => set);
      return item && withoutOrg(fromItem(item));
    },

    /**
     * A new signing secret (and its hint); the current one keeps verifying for `graceHours`
     * (0: not kept), replacing any previous one (docs/automation.md, rotating the secret).
     */
    async rotateSecret(orgId: string, id: string, secret: string, graceHours: number): Promise<StoredAutomationIntegration | undefined> {
      const item = await rotateSealed(ctx, orgId, keys.automationIntegration(orgId, id), SECRET_FIELDS, { secret, graceHours, set: { secret_hint: hintOf(secret) } });
      return item && withoutOrg(fromItem(item));
    },

    /** The secrets an event may be signed with now, opened: the current one, and the previous one within its grace period. */
    signingSecrets(orgId: string, integration: StoredAutomationIntegration) {
      return signingSecrets(ctx, orgId, keys.automationIntegration(orgId, integration.id), integration);
    },

    async delete(orgId: string, id: string): Promise<StoredAutomationIntegration | undefined> {
      const current = await this.get(orgId, id);
      if (!current) return undefined;
      await table.delete(keys.automationIntegration(orgId, id));
      return current;
    },

    /**
     * The first answer to a delivery, if this integration handled it before; `pending`
     * while a request holds the delivery's claim (see claim).
     */
    async handled(integrationId: string, deliveryId: string): Promise<HandledAutomationDelivery | 'pending' | undefined> {
      const item = await table.get(dedupeKey(consumer(integrationId), deliveryId));
      if (!item) return undefined;
      if (item.claim !== undefined && item.answer === undefined) return 'pending';
      return { http_status: item.http_status as number, answer: item.answer as Record<string, unknown> };
    },

    /**
     * Claims a delivery before the work its answer needs (a generated test), so two
     * requests carrying it at once do the work once; false: another request holds it or
     * answered it. The claim lapses after CLAIM_LEASE_SECONDS (an expired item counts as
     * absent), so a request that died mid-work does not block the sender's next retry.
     */
    async claim(orgId: string, integrationId: string, deliveryId: string, token: string): Promise<boolean> {
      const now = ctx.clock.now();
      try {
        await table.put(
          { ...dedupeKey(consumer(integrationId), deliveryId), entity: 'event_dedupe', consumer: consumer(integrationId), event_id: deliveryId, tenant_id: orgId, claim: token, claimed_at: now.toISOString(), expiresAt: Math.floor(now.getTime() / 1000) + CLAIM_LEASE_SECONDS },
          { kind: 'notExists' },
        );
        return true;
      } catch (err) {
        if (err instanceof ConditionFailedError) return false;
        throw err;
      }
    },

    /** Gives a claim up (the work failed): the sender's retry may try again at once. */
    async release(integrationId: string, deliveryId: string, token: string): Promise<void> {
      try {
        await table.delete(dedupeKey(consumer(integrationId), deliveryId), { kind: 'equals', attr: 'claim', value: token });
      } catch (err) {
        if (!(err instanceof ConditionFailedError)) throw err;
      }
    },

    /**
     * Records a delivery's answer once; false: another request recorded one first. With
     * `token`, the answer replaces this request's own claim, and only while it holds it.
     */
    async markHandled(orgId: string, integrationId: string, deliveryId: string, handled: HandledAutomationDelivery, token?: string): Promise<boolean> {
      const now = ctx.clock.now();
      try {
        await table.put(
          { ...dedupeKey(consumer(integrationId), deliveryId), entity: 'event_dedupe', consumer: consumer(integrationId), event_id: deliveryId, tenant_id: orgId, processed_at: now.toISOString(), expiresAt: Math.floor(now.getTime() / 1000) + DEDUPE_TTL_SECONDS, ...handled },
          token ? { kind: 'equals', attr: 'claim', value: token } : { kind: 'notExists' },
        );
        return true;
      } catch (err) {
        if (err instanceof ConditionFailedError) return false;
        throw err;
      }
    },
  };
}
