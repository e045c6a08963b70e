import type { z } from 'zod';
import type { ApiKeySchema } from '../contracts/api-key.ts';
import { notFound } from '../errors.ts';
import { keys, stripLayout } from './keys.ts';
import { queryPage, type StoreContext } from './context.ts';

export type ApiKeyRecord = z.output<typeof ApiKeySchema>;

/** What authentication needs from a key, read by hash. */
export interface ApiKeyAuthRecord {
  id: string;
  organization_id: string;
  project_id: string | null;
  permissions: ApiKeyRecord['permissions'];
  expires_at: string | null;
  created_by: string;
  /** Copied here so authentication can throttle the last_used write without a second read. */
  last_used?: string | null;
}

/** last_used is written at most this often per key, so reads don't become writes. */
const LAST_USED_RESOLUTION_MS = 60_000;

/**
 * Two items per key: the public record under its organization (listing, revocation)
 * and an auth record under the key's hash (one read per request). Creation and
 * revocation write both in one transaction, so a revoked key stops working at once.
 */
export function apiKeysRepo(ctx: StoreContext) {
  const { table } = ctx;
  return {
    async create(input: {
      organizationId: string;
      name: string;
      prefix: string;
      hash: string;
      permissions: ApiKeyRecord['permissions'];
      projectId?: string | null;
      expiresAt?: string | null;
      createdBy: string;
    }): Promise<ApiKeyRecord> {
      const record: ApiKeyRecord = {
        id: ctx.newId(),
        organization_id: input.organizationId,
        project_id: input.projectId ?? null,
        name: input.name,
        prefix: input.prefix,
        permissions: input.permissions,
        created_at: ctx.clock.now().toISOString(),
        last_used: null,
        expires_at: input.expiresAt ?? null,
        revoked_at: null,
      };
      const auth: ApiKeyAuthRecord = {
        id: record.id,
        organization_id: record.organization_id,
        project_id: record.project_id,
        permissions: record.permissions,
        expires_at: record.expires_at,
        created_by: input.createdBy,
        last_used: null,
      };
      await table.transact([
        { type: 'put', item: { ...keys.apiKey(record.organization_id, record.id), entity: 'api_key', key_hash: input.hash, created_by: input.createdBy, ...record }, condition: { kind: 'notExists' } },
        { type: 'put', item: { ...keys.apiKeyHash(input.hash), ...auth }, condition: { kind: 'notExists' } },
      ]);
      return record;
    },

    /** The auth record of a live key, or undefined (unknown, revoked or expired). */
    async findByHash(hash: string): Promise<ApiKeyAuthRecord | undefined> {
      const item = await table.get(keys.apiKeyHash(hash));
      if (!item) return undefined;
      const auth = stripLayout<ApiKeyAuthRecord>(item);
      if (auth.expires_at && Date.parse(auth.expires_at) <= ctx.clock.now().getTime()) return undefined;
      return auth;
    },

    /**
     * Records use of a key on both of its items, at most once a minute: `key` is the auth
     * record authentication just read, so deciding costs no extra read.
     */
    async touch(hash: string, key: ApiKeyAuthRecord): Promise<void> {
      const now = ctx.clock.now();
      if (key.last_used && now.getTime() - Date.parse(key.last_used) < LAST_USED_RESOLUTION_MS) return;
      const set = { last_used: now.toISOString() };
      // A key revoked meanwhile has no auth record: the transaction fails and nothing is written.
      await table
        .transact([
          { type: 'update', update: { key: keys.apiKey(key.organization_id, key.id), set } },
          { type: 'update', update: { key: keys.apiKeyHash(hash), set } },
        ])
        .catch(() => undefined);
    },

    async get(orgId: string, keyId: string): Promise<(ApiKeyRecord & { key_hash: string }) | undefined> {
      const item = await table.get(keys.apiKey(orgId, keyId));
      return item ? stripLayout<ApiKeyRecord & { key_hash: string }>(item) : undefined;
    },

    async list(orgId: string, limit: number, cursor?: string) {
      const page = await queryPage<ApiKeyRecord & { key_hash?: string; created_by?: string }>(table, { pk: `ORG#${orgId}`, skPrefix: 'APIKEY#', limit, cursor, descending: true });
      return { ...page, items: page.items.map(publicView) };
    },

    async revoke(orgId: string, keyId: string): Promise<ApiKeyRecord> {
      const current = await this.get(orgId, keyId);
      if (!current) throw notFound('API key');
      if (current.revoked_at) return publicView(current);
      const revokedAt = ctx.clock.now().toISOString();
      await table.transact([
        { type: 'update', update: { key: keys.apiKey(orgId, keyId), set: { revoked_at: revokedAt } } },
        { type: 'delete', key: keys.apiKeyHash(current.key_hash) },
      ]);
      return publicView({ ...current, revoked_at: revokedAt });
    },
  };
}

function publicView(record: ApiKeyRecord & { key_hash?: string; created_by?: string }): ApiKeyRecord {
  const { key_hash: _hash, created_by: _by, ...rest } = record;
  return rest;
}
