import { z } from 'zod';
import { IsoDateTime, Uuid } from './common.ts';

/** LLM task classes (spec behaviour rule 4), cheapest first. */
export const taskComplexities = ['TRIVIAL', 'SIMPLE', 'MODERATE', 'COMPLEX', 'EXPERT'] as const;
export const TaskComplexity = z.enum(taskComplexities).describe('LLM task class: TRIVIAL, SIMPLE, MODERATE, COMPLEX or EXPERT');
export type TaskComplexity = z.output<typeof TaskComplexity>;

/** Indicative USD cost per 1K tokens by task class. */
export const indicativeCostPer1kTokens: Record<TaskComplexity, number> = {
  TRIVIAL: 0.001,
  SIMPLE: 0.001,
  MODERATE: 0.003,
  COMPLEX: 0.003,
  EXPERT: 0.015,
};

/** One LLM call's usage (ai_usage). */
export const AiUsageSchema = z.object({
  id: Uuid.describe('Usage record id'),
  organization_id: Uuid.describe('Organization billed'),
  run_id: Uuid.nullable().describe('Run the call was made for, or null'),
  model: z.string().describe('Model identifier'),
  input_tokens: z.number().int().nonnegative().describe('Prompt tokens'),
  output_tokens: z.number().int().nonnegative().describe('Completion tokens'),
  cost_usd: z.number().nonnegative().describe('Cost in USD'),
  task_type: z.string().describe('What the call was for, e.g. plan_tests, heal_selector, generate_test'),
  created_at: IsoDateTime.describe('When the call was made'),
});
export type AiUsage = z.output<typeof AiUsageSchema>;

/** Daily aggregation of ai_usage per organization (ai_usage_daily). */
export const AiUsageDailySchema = z.object({
  organization_id: Uuid.describe('Organization billed'),
  date: z.iso.date().describe('UTC day, YYYY-MM-DD'),
  request_count: z.number().int().nonnegative().describe('LLM calls that day'),
  input_tokens: z.number().int().nonnegative().describe('Prompt tokens that day'),
  output_tokens: z.number().int().nonnegative().describe('Completion tokens that day'),
  cost_usd: z.number().nonnegative().describe('Cost that day in USD'),
});
export type AiUsageDaily = z.output<typeof AiUsageDailySchema>;
