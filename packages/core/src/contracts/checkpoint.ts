import { z } from 'zod';
import { IsoDateTime, JsonObject } from './common.ts';

/**
 * Execution thread state (spec "Execution thread state"): a chain of checkpoints per
 * run thread, one saved after every graph node, plus the pending writes of each. Binary
 * columns travel as base64 strings.
 */

export const Base64 = z.base64().describe('Binary data, base64-encoded');

/** Why a checkpoint was written (LangGraph-compatible vocabulary). */
export const checkpointSources = ['input', 'loop', 'update', 'fork'] as const;

export const CheckpointMetadataSchema = z
  .looseObject({
    source: z.enum(checkpointSources).describe('input (run start), loop (after a node), update (state edited, e.g. approval modify) or fork'),
    step: z.number().int().min(-1).describe('Superstep number; -1 for the input checkpoint'),
    node: z.string().nullable().optional().describe('Graph node that just finished (analyze_code, plan_tests, execute_test, self_heal, report)'),
    parents: z.record(z.string(), z.string()).optional().describe('checkpoint_ns → parent checkpoint id, for nested graphs'),
  })
  .describe('Checkpoint metadata');
export type CheckpointMetadata = z.output<typeof CheckpointMetadataSchema>;

/** A stored checkpoint. */
export const CheckpointSchema = z.object({
  thread_id: z.string().min(1).describe('Execution thread (one per run)'),
  checkpoint_ns: z.string().describe('Namespace within the thread; "" for the root graph'),
  checkpoint_id: z.string().min(1).describe('Checkpoint id; sorts in creation order'),
  parent_checkpoint_id: z.string().nullable().describe('Previous checkpoint in the chain, or null for the first'),
  checkpoint: Base64.describe('Serialised state, base64'),
  metadata: CheckpointMetadataSchema,
  created_at: IsoDateTime.describe('When the checkpoint was saved'),
});
export type Checkpoint = z.output<typeof CheckpointSchema>;

/** Listing entry for GET /api/v1/time-travel/history/{thread_id}: the checkpoint without its state blob. */
export const CheckpointSummarySchema = CheckpointSchema.omit({ checkpoint: true });
export type CheckpointSummary = z.output<typeof CheckpointSummarySchema>;

/** A pending write attached to a checkpoint. */
export const CheckpointWriteSchema = z.object({
  thread_id: z.string().min(1).describe('Execution thread'),
  checkpoint_ns: z.string().describe('Namespace within the thread'),
  checkpoint_id: z.string().min(1).describe('Checkpoint the write belongs to'),
  task_id: z.number().int().nonnegative().describe('Task that produced the write'),
  idx: z.number().int().describe('Position of the write within the task (negative for special channels)'),
  channel: z.string().min(1).describe('State channel written'),
  type: z.string().describe('Serialisation type of blob, e.g. json'),
  blob: Base64.describe('Serialised value, base64'),
});
export type CheckpointWrite = z.output<typeof CheckpointWriteSchema>;

/** POST /api/v1/time-travel/replay body. */
export const ReplayInput = z.strictObject({
  thread_id: z.string().min(1).describe('Thread to replay'),
  checkpoint_id: z.string().min(1).describe('Checkpoint to re-execute from'),
});
export type ReplayInput = z.output<typeof ReplayInput>;

/** POST /api/v1/time-travel/fork body. */
export const ForkInput = z.strictObject({
  thread_id: z.string().min(1).describe('Thread to fork'),
  checkpoint_id: z.string().min(1).describe('Checkpoint to branch from'),
  state: JsonObject.optional().describe('Fields of the state to replace in the new thread. test_results keeps results as they are or removes them (a removed result\'s test runs again); a result cannot be added or edited, and must be of a planned test'),
});
export type ForkInput = z.output<typeof ForkInput>;

/** GET /api/v1/time-travel/compare query. */
export const CompareQuery = z.strictObject({
  thread_id: z.string().min(1).describe('Thread of both checkpoints'),
  checkpoint_a: z.string().min(1).describe('First checkpoint id'),
  checkpoint_b: z.string().min(1).describe('Second checkpoint id'),
});
export type CompareQuery = z.output<typeof CompareQuery>;

/** The diff of two states: top-level fields added, changed, unchanged (and removed). */
export const StateDiffSchema = z.object({
  added: z.array(z.string()).describe('Fields present only in the second state'),
  removed: z.array(z.string()).describe('Fields present only in the first state'),
  changed: z.array(z.string()).describe('Fields whose value differs'),
  unchanged: z.array(z.string()).describe('Fields with equal values'),
});
export type StateDiff = z.output<typeof StateDiffSchema>;
