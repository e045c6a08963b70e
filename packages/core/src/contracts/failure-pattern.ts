import { z } from 'zod';
import { IsoDateTime, Uuid } from './common.ts';
import { Embedding } from './memory.ts';

/** A failure and how it was healed (test_failure_patterns), searchable by embedding. */
export const FailurePatternSchema = z.object({
  id: Uuid.describe('Pattern id'),
  project_id: Uuid.nullable().describe('Project the failure happened in (tenant scope), or null'),
  error_message: z.string().describe('The failure message'),
  healed_selector: z.string().nullable().describe('Selector that fixed it, or null if not healed'),
  healing_method: z.string().nullable().describe('How it was healed, e.g. cache, memory, dom_similarity, vision, git; null if not healed'),
  embedding: Embedding.nullable().describe('Embedding of the error message (1536 numbers), or null when not embedded'),
  created_at: IsoDateTime.describe('When the pattern was recorded'),
});
export type FailurePattern = z.output<typeof FailurePatternSchema>;
