import type { Step } from '@svc/core/contracts/steps';
import type { LlmClient } from '@svc/core/llm/types';
import { LlmError } from '@svc/core/llm/errors';
import { validationFailed } from '@svc/core/errors';
import { parsePlainLanguage } from '@svc/core/intelligence/generation/plain-language';
import type { GenerationExecutor } from '../generation/execute-once.ts';
import { assistWithModel } from '../generation/model-assist.ts';
import { rejectUnparsed } from '../generation/reject-unparsed.ts';

export interface InstructionSteps {
  steps: Step[];
  understood: Array<{ line: number; text: string; source: 'grammar' | 'model'; steps: number }>;
  /** The model that rewrote lines the grammar could not read (absent: none was needed). */
  model?: string | null;
}

/**
 * An instruction in plain language → steps, the way plain-language test generation reads
 * text: the grammar first (no model); lines it cannot read go to the model when one is
 * configured (assistWithModel, with the start page's elements as context). A line that
 * stays unread is an error naming it — never a guessed step. Without a model, such a line
 * is NO_MODEL: the grammar alone could not do it.
 */
export async function stepsFromInstruction(i: { text: string; llm?: LlmClient; executor: GenerationExecutor; organizationId: string; projectId: string; baseUrl?: string }): Promise<InstructionSteps> {
  const grammar = parsePlainLanguage(i.text);
  let parsed = grammar;
  let model: string | null | undefined;
  if (grammar.not_understood.length) {
    if (!i.llm?.configured) {
      const lines = grammar.not_understood.map((l) => `line ${l.line} "${l.text}" (closest supported sentence: ${l.closest})`);
      throw new LlmError('NO_MODEL', `NO_MODEL: the instruction has lines the grammar cannot read and no language model is configured to rewrite them (SVC_LLM_PROVIDERS): ${lines.join('; ')}`, { field: 'instruction', not_understood: grammar.not_understood });
    }
    // One browser for listing the start page's elements; released before the actions run.
    const batch = i.executor.batch();
    try {
      const assisted = await assistWithModel({ llm: i.llm, executor: i.executor, parsed: grammar, organizationId: i.organizationId, projectId: i.projectId, baseUrl: i.baseUrl, batch });
      parsed = assisted.result;
      model = assisted.model?.model ?? null;
      rejectUnparsed(parsed, 'instruction', false, { model: assisted.model ?? null, ...(assisted.model_error && { model_error: assisted.model_error }) });
    } finally {
      await i.executor.release(batch);
    }
  }
  rejectUnparsed(parsed, 'instruction', false);
  // An Examples table would mean one run per row; act performs its steps once.
  if (parsed.parameter_sets?.length) throw validationFailed([{ path: 'instruction', message: 'an Examples table means several runs; act performs one — write the values into the sentences' }]);
  return {
    steps: parsed.steps,
    understood: parsed.understood.map((u) => ({ line: u.line, text: u.text, source: u.source ?? 'grammar', steps: u.steps.length })),
    ...(model !== undefined && { model }),
  };
}
