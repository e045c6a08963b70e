/**
 * Helpers for the contract tests (test-only; not exported from the index): run a schema
 * through parseInput and return the field issues it reports.
 */
import type { z } from 'zod';
import { AppError, type FieldIssue } from '../errors.ts';
import { parseInput, type InputLocation } from './parse.ts';

export { parseInput };

export function issues(schema: z.ZodType, data: unknown, where?: InputLocation): FieldIssue[] {
  try {
    parseInput(schema, data, where);
  } catch (e) {
    if (!(e instanceof AppError)) throw e;
    return (e.details as { issues: FieldIssue[] }).issues;
  }
  throw new Error('expected a validation failure');
}

export const paths = (schema: z.ZodType, data: unknown, where?: InputLocation) => issues(schema, data, where).map((i) => i.path);
export const id = () => crypto.randomUUID();
export const now = '2025-01-31T12:00:00.000Z';
