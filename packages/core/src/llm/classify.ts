import type { TaskComplexity } from '../contracts/ai-usage.ts';
import { complexityAt, complexityRank } from './tiers.ts';
import type { LlmTask } from './types.ts';

/**
 * Base class of each known task type. Unknown types count as MODERATE: a mid-tier model
 * is the safe middle when nothing is known about the work.
 */
export const baseComplexity: Record<string, TaskComplexity> = {
  classify: 'TRIVIAL',
  extract_fields: 'TRIVIAL',
  summarize: 'SIMPLE',
  chat_answer: 'SIMPLE',
  heal_selector: 'SIMPLE',
  parse_story: 'SIMPLE',
  explain_failure: 'MODERATE',
  generate_test: 'MODERATE',
  review_test: 'MODERATE',
  plan_tests: 'MODERATE',
  analyze_code: 'COMPLEX',
  generate_suite: 'COMPLEX',
  root_cause: 'COMPLEX',
  security_review: 'EXPERT',
};

/** Input sizes (estimated tokens) that push a task up one class, then two. */
export const LARGE_INPUT_TOKENS = 8_000;
export const HUGE_INPUT_TOKENS = 32_000;

/**
 * Classifies a task (spec rule 4). Rules, in order:
 * 1. An explicit `complexity` on the task wins, unchanged.
 * 2. Otherwise start from the task type's base class (table above; unknown → MODERATE).
 * 3. Input over 8K estimated tokens raises the class one step, over 32K two steps: long
 *    contexts need a model that keeps track of them.
 * 4. `needsReasoning` raises one step; images raise the class to at least MODERATE
 *    (the cheapest models are often text-only).
 * The result is capped at EXPERT.
 */
export function classifyTask(task: LlmTask, input: { inputTokens: number; hasImages?: boolean }): TaskComplexity {
  if (task.complexity) return task.complexity;
  let rank = complexityRank(baseComplexity[task.type] ?? 'MODERATE');
  if (input.inputTokens > HUGE_INPUT_TOKENS) rank += 2;
  else if (input.inputTokens > LARGE_INPUT_TOKENS) rank += 1;
  if (task.needsReasoning) rank += 1;
  if (input.hasImages) rank = Math.max(rank, complexityRank('MODERATE'));
  return complexityAt(rank);
}
