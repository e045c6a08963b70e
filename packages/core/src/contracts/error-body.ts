import { z } from 'zod';

/** The one error body every HTTP error uses (codes: see errorStatus in errors.ts). */
export const ErrorBodySchema = z.object({
  error: z
    .object({
      code: z.string().describe('Stable machine-readable code, e.g. VALIDATION_FAILED, NOT_FOUND'),
      message: z.string().describe('Human-readable explanation'),
      details: z
        .unknown()
        .optional()
        .describe('Extra data; for VALIDATION_FAILED: { issues: [{ path, message }] }'),
    })
    .describe('The error'),
});
export type ErrorBody = z.output<typeof ErrorBodySchema>;
