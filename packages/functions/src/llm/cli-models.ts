/**
 * Models for `svc run` (no server, no organizations): when SVC_LLM_* is set, the healing
 * model chooser and — with SVC_LLM_VISION — the vision fallback, behind the same
 * LlmClient as the server. Usage rows and their roll-ups go to a file table in the state
 * dir (<state-dir>/llm-usage), like the CLI's other state, under the organization id
 * "local"; the run ends with a one-line summary of this run's calls.
 */
import { join } from 'node:path';
import { ModelChooser } from '@svc/core/healing/service/model-chooser';
import { createStore } from '@svc/core/store/index';
import { systemClock } from '@svc/core/ports/clock';
import type { LlmCallContext, LlmClient } from '@svc/core/llm/types';
import type { VisionLocator } from '../execution/browser/vision.ts';
import type { ExtractModel } from '@svc/core/execution/extract/ask-model';
import { FileTable } from '../local/file-table.ts';
import { parseLlmConfig } from './config.ts';
import { createLlmFromConfig } from './from-env.ts';
import { llmVisionLocator } from './vision-locator.ts';

/** The organization id CLI usage is recorded under (budgets per run and test still apply). */
export const CLI_ORGANIZATION = 'local';

export interface CliModels {
  chooser: ModelChooser;
  /** Set only with SVC_LLM_VISION. */
  vision?: VisionLocator;
  /** The model extract steps with an instruction ask. */
  extract: ExtractModel;
  /** "AI usage: …" for the end of the run, or undefined when no call was made. */
  summary(): string | undefined;
  close(): Promise<void>;
}

/** Undefined when no provider is configured; throws (naming the variable) when the configuration is broken. */
export async function cliModels(env: Record<string, string | undefined>, stateDir: string): Promise<CliModels | undefined> {
  const config = parseLlmConfig(env);
  if (!config) return undefined;
  const dir = join(stateDir, 'llm-usage');
  const table = await FileTable.open(dir);
  const llm = counting(createLlmFromConfig(config, { store: createStore(table, systemClock), clock: systemClock }));
  const context: LlmCallContext = { organizationId: CLI_ORGANIZATION };
  return {
    chooser: new ModelChooser({ llm, organizationId: CLI_ORGANIZATION }),
    vision: config.vision ? llmVisionLocator({ llm, context, verify: config.visionVerify }) : undefined,
    extract: { llm, context },
    summary() {
      if (!llm.calls.size) return undefined;
      const parts = [...llm.calls].map(([task, n]) => `${task} ×${n}`).join(', ');
      return `AI usage: ${parts}; ${llm.tokens} tokens, ${llm.cost.toFixed(4)} USD (recorded in ${dir})`;
    },
    close: () => table.close(),
  };
}

/** The client, counting this run's successful calls by task for the summary line. */
function counting(inner: LlmClient): LlmClient & { calls: Map<string, number>; tokens: number; cost: number } {
  const wrapped = {
    calls: new Map<string, number>(),
    tokens: 0,
    cost: 0,
    configured: inner.configured,
    describe: () => inner.describe(),
    async complete(...args: Parameters<LlmClient['complete']>) {
      const res = await inner.complete(...args);
      wrapped.calls.set(args[0].type, (wrapped.calls.get(args[0].type) ?? 0) + 1);
      wrapped.tokens += res.inputTokens + res.outputTokens;
      wrapped.cost += res.costUsd;
      return res;
    },
  };
  return wrapped;
}
