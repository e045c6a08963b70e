import { randomUUID } from 'node:crypto';
import { AppError } from '../errors.ts';
import { ConditionFailedError, type Item, type ItemKey } from '../ports/table.ts';
import type { StoreContext } from './context.ts';
import type { StoredSecret } from './secret-fields.ts';

/**
 * A rotatable signing secret on a stored record (VCS and automation integrations): the
 * current secret, and the one the last rotation replaced with the time it stops verifying.
 * Only one previous secret is kept: rotating again replaces it with the then current one.
 */
export interface RotatableSecret {
  secret: StoredSecret;
  previous_secret: StoredSecret | null;
  previous_secret_expires_at: string | null;
  secret_rotated_at: string | null;
  /**
   * Names the current secret (a random id, set at creation and by each rotation; never a
   * secret), so a rotation can be conditional on the secret it read still being current.
   * Absent on records from before rotation existed.
   */
  secret_id?: string;
}

/** Records written before rotation existed have none of its attributes. */
export const rotationDefaults = { previous_secret: null, previous_secret_expires_at: null, secret_rotated_at: null } as const;

/** What a new record stores about its secret's rotation. */
export const newRotation = () => ({ ...rotationDefaults, secret_id: randomUUID() });

/** Whether the previous secret still verifies at `now` (its expiry is exclusive). */
export const previousAccepted = (r: Pick<RotatableSecret, 'previous_secret' | 'previous_secret_expires_at'>, now: Date) =>
  !!r.previous_secret && !!r.previous_secret_expires_at && Date.parse(r.previous_secret_expires_at) > now.getTime();

/** The secrets a signature may be made with now, opened: the current one, and the previous one within its grace period. */
export async function signingSecrets(ctx: StoreContext, orgId: string, key: ItemKey, r: RotatableSecret): Promise<{ secret: string; previous_secret: string | null }> {
  const stored = { secret: r.secret, previous_secret: previousAccepted(r, ctx.clock.now()) ? r.previous_secret : null };
  return (await ctx.secrets.open(orgId, key, stored)) as { secret: string; previous_secret: string | null };
}

/** The current secret, opened; null when it does not open (it verified nothing, so there is nothing to keep). */
async function openedOrNull(ctx: StoreContext, orgId: string, key: ItemKey, stored: unknown): Promise<string | null> {
  try {
    return (await ctx.secrets.open(orgId, key, { secret: stored })).secret;
  } catch (err) {
    if (err instanceof AppError && err.code === 'SECRET_UNREADABLE') return null;
    throw err;
  }
}

const ATTEMPTS = 3;

/**
 * Replaces a record's secret with `secret` and keeps the replaced one, re-sealed under its
 * new attribute name (a sealed value is bound to its attribute, so it cannot be copied),
 * as `previous_secret` for `graceHours` (0: not kept). `fields` are the record's secret
 * attributes: the given ones are sealed and any still in plaintext from before are
 * re-sealed, as every write does. The write is conditional on `secret_id` being the one
 * read (on a record from before rotation, which has none, on `updated_at`), so two
 * rotations racing cannot both keep the same previous secret and lose the secret the
 * first one answered with: the loser reads again and keeps the winner's as previous.
 * Undefined when the record does not exist.
 */
export async function rotateSealed(ctx: StoreContext, orgId: string, key: ItemKey, fields: readonly string[], o: { secret: string; graceHours: number; set?: Record<string, unknown> }): Promise<Item | undefined> {
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const current = await ctx.table.get(key);
    if (!current) return undefined;
    const now = ctx.clock.now();
    const previous = o.graceHours > 0 ? await openedOrNull(ctx, orgId, key, current.secret) : null;
    const set = {
      ...o.set,
      secret: o.secret,
      previous_secret: previous,
      previous_secret_expires_at: previous === null ? null : new Date(now.getTime() + o.graceHours * 3_600_000).toISOString(),
      secret_rotated_at: now.toISOString(),
      secret_id: randomUUID(),
      updated_at: now.toISOString(),
    };
    // forUpdate's own condition (a plaintext attribute unchanged) is covered: plaintext is
    // only on records from before rotation, whose guard is updated_at, which every write sets.
    const write = await ctx.secrets.forUpdate(orgId, key, current, fields, set);
    const guard = typeof current.secret_id === 'string' ? { attr: 'secret_id', value: current.secret_id } : { attr: 'updated_at', value: current.updated_at as string };
    try {
      return await ctx.table.update({ key, set: write.set, condition: { kind: 'equals', ...guard } });
    } catch (err) {
      if (!(err instanceof ConditionFailedError)) throw err;
    }
  }
  throw new AppError('CONFLICT', 'the integration kept changing while its secret was being rotated; try again');
}
