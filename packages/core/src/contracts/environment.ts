import { z } from 'zod';
import { IsoDateTime } from './common.ts';

/** At most this many variables per project (the whole set is read at the start of every run). */
export const MAX_ENVIRONMENT_VARIABLES = 200;

/** A variable's name: what `{{env.NAME}}`, `{{secrets.NAME}}` and a DB step's `url_env` refer to. */
export const EnvironmentVariableName = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'letters, digits and _, not starting with a digit')
  .max(128)
  .describe('Variable name, e.g. DATABASE_URL');

/** PUT /api/v1/projects/{id}/environment/{name} body. */
export const EnvironmentVariableInput = z.strictObject({
  value: z.string().max(10_000).describe('The value (up to 10,000 characters)'),
  secret: z.boolean().default(false).describe('A secret: readable by tests as {{secrets.NAME}}, masked in reports, never returned by the API'),
});

/** A project's environment variable as the API shows it: a secret's value is never returned. */
export const EnvironmentVariableSchema = z.object({
  name: EnvironmentVariableName,
  secret: z.boolean().describe('Whether the value is a secret'),
  value: z.string().nullable().describe('The value; null for a secret'),
  updated_at: IsoDateTime.describe('When the value was last set'),
  updated_by: z.string().describe('User who last set it'),
});
export type EnvironmentVariable = z.output<typeof EnvironmentVariableSchema>;
