import type { Store } from '@svc/core/store/index';
import type { EventPublisher } from '@svc/core/ports/events';
import type { Clock } from '@svc/core/ports/clock';
import { createCheckpointer } from '@svc/core/run-graph/checkpointer';
import { StepHealer } from '@svc/core/execution/step-healer';
import { storeHealingKnowledge } from '@svc/core/healing/service/store-knowledge';
import { healingSettings } from '@svc/core/healing/service/settings';
import type { Embedder } from '@svc/core/healing/service/embedder';
import { ModelChooser } from '@svc/core/healing/service/model-chooser';
import type { LlmClient } from '@svc/core/llm/types';

export interface ServerStepHealerOptions {
  store: Store;
  clock: Clock;
  /** Embeds failures for healing memory (embedderFromEnv). */
  embedder: Embedder;
  /** healing.completed after each in-step heal attempt; absent → none. */
  publisher?: EventPublisher;
  /** With a model configured, it arbitrates ambiguous rankings (docs/healing.md "With a model"), paid by the run's organization. */
  llm?: LlmClient;
}

export type RunRef = { threadId: string; organizationId: string; projectId: string };

/**
 * The in-step healer of a server run (API, stream, retry): a StepHealer over the store's
 * healing knowledge for the run's organization and project — proven patterns, memory
 * and the 7-day cache are tried first, and every heal whose re-run passes is learned
 * (pattern, cache, memory) and reported (healing.completed).
 *
 * It is built per run, from the project's `config.healing` (threshold, max_retries,
 * enabled) and the run's own settings. None (undefined) when the run disables healing,
 * or when it requires healing approval: an in-step heal applies at once, so approval
 * runs leave every broken locator to the self_heal node, which waits for a person.
 */
export function serverStepHealer(o: ServerStepHealerOptions): (run: RunRef) => Promise<StepHealer | undefined> {
  const checkpointer = createCheckpointer(o.store.checkpoints, o.clock);
  return async (run) => {
    const [project, { state }] = await Promise.all([o.store.projects.get(run.organizationId, run.projectId), checkpointer.load(run.threadId)]);
    const { settings } = healingSettings(project?.config);
    const { healing_enabled, require_healing_approval } = state.graph.config;
    if (!settings.enabled || !healing_enabled || require_healing_approval) return undefined;
    const knowledge = storeHealingKnowledge({ store: o.store, organizationId: run.organizationId, projectId: run.projectId, embedder: o.embedder, publisher: o.publisher, correlationId: state.run_id, runId: state.run_id, clock: o.clock });
    const chooser = o.llm?.configured ? new ModelChooser({ llm: o.llm, organizationId: run.organizationId }) : undefined;
    return new StepHealer({ enabled: true, threshold: settings.threshold, maxRetries: settings.max_retries }, knowledge, chooser);
  };
}
