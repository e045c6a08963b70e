import { z } from 'zod';
import { IsoDateTime } from './common.ts';

/**
 * Rotating an inbound webhook's signing secret (VCS and automation integrations,
 * docs/decisions.md "Rotating webhook secrets"): a new secret, shown once, while the one
 * it replaces keeps verifying for a grace period, so the host or tool can be updated
 * without a delivery refused in between.
 */

export const DEFAULT_GRACE_HOURS = 24;
/** A week: long enough for a change window, short enough that a leaked secret does not outlive its rotation by much. */
export const MAX_GRACE_HOURS = 168;

export const RotateSecretInput = z.strictObject({
  grace_hours: z
    .number()
    .int()
    .min(0)
    .max(MAX_GRACE_HOURS)
    .default(DEFAULT_GRACE_HOURS)
    .describe(`Whole hours the previous secret keeps verifying (0..${MAX_GRACE_HOURS}, default ${DEFAULT_GRACE_HOURS}); 0: it stops at once`),
});
export type RotateSecretInput = z.output<typeof RotateSecretInput>;

/** What an integration says about its secret's rotation (never a secret). */
export const secretRotationFields = {
  secret_rotated_at: IsoDateTime.nullable().describe('When the secret was last rotated; null: never (it is the one made at creation)'),
  previous_secret_expires_at: IsoDateTime.nullable().describe('Until when the secret replaced by the last rotation still verifies; null: none is kept. A time in the past: it no longer verifies'),
};

/** The rotation's answer adds the new secret, shown this once. */
export const rotatedSecretFields = {
  secret: z.string().describe('The new secret: shown only now (kept sealed); put it into the host or tool'),
  previous_secret_expires_at: IsoDateTime.nullable().describe('Until when the previous secret still verifies; null: it stopped at once (grace_hours 0, or it could not be opened)'),
};
