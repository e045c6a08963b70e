import type { Store } from '../../store/index.ts';
import type { EventPublisher } from '../../ports/events.ts';
import type { Clock, IdSource } from '../../ports/clock.ts';
import type { Locator } from '../../contracts/steps.ts';
import { eventSources, healingCompleted, SELF_HEAL_CONFIDENCE_THRESHOLD } from '../../events/producers.ts';
import { stableKey } from './hash.ts';
import type { Embedder } from './embedder.ts';
import { failureText, type HealingKnowledge, type HealQuery, type HealRecord, type KnownFix } from './knowledge.ts';
import { patternType } from './pattern-type.ts';

export interface StoreKnowledgeOptions {
  store: Store;
  organizationId: string;
  projectId: string;
  embedder: Embedder;
  /** Publishes healing.completed after each attempt; omitted → no events. */
  publisher?: EventPublisher;
  correlationId?: string;
  /** The run the heals happen in (its healing.completed events name it when the query does not). */
  runId?: string;
  clock?: Clock;
  ids?: IdSource;
  /** Memory matches below this similarity are ignored (search_similar_failures default 0.7). */
  similarityThreshold?: number;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * HealingKnowledge over the store, for one organization and project: proven patterns
 * (healing_patterns with a high success count), memory (similar past failures of the
 * same selector), and the 7-day healing cache. A success records or bumps the pattern,
 * caches the fix and writes memory entries (failures + fixes) with embeddings.
 */
export function storeHealingKnowledge(o: StoreKnowledgeOptions): HealingKnowledge {
  const { store, organizationId: org, projectId } = o;
  const cacheKey = (q: HealQuery) => ({ project_id: projectId, original_selector: q.original, url_pattern: q.urlPattern, failure_class: q.failureClass });
  const embed = async (q: HealQuery) => (await o.embedder.embed([failureText(q)]))[0];

  return {
    async lookup(q) {
      const patterns = await store.healingPatterns.forSelector(org, projectId, q.original);
      const reverted = new Set(patterns.filter((p) => p.reverted_at).map((p) => p.healed_selector));
      // A remembered fix that failed more often than it worked is not offered again.
      const discredited = new Set(patterns.filter((p) => p.failure_count > p.success_count).map((p) => p.healed_selector));
      const fixes: KnownFix[] = [];

      const best = await store.healingPatterns.bestFix(org, projectId, q.original);
      if (best) fixes.push({ source: 'pattern', healed: best.healed_selector, healedLocator: (best.healed_locator as Locator | undefined) ?? best.healed_selector, confidence: best.confidence, patternId: best.id, evidence: best.success_count });

      // The cache answers for exactly this situation; memory adds fixes of the same selector seen elsewhere (other pages,
      // other failure classes, or after the cache entry expired). A fix both know is served as a cache hit.
      const cached = await store.healingCache.get(org, cacheKey(q));
      const cacheFix = cached && !reverted.has(cached.healed_selector) ? cached : undefined;
      type Remembered = { project_id?: string; original_selector?: string; healed_selector?: string; healed_locator?: Locator; confidence?: number; pattern_id?: string };
      // Only fixes of this very selector in this project: a similar failure of another element is a hint, never a heal.
      // Kept before the 5 closest are taken, so other projects' and selectors' failures cannot push this one's out.
      const usable = (e: { value: unknown }) => {
        const v = e.value as Remembered;
        return v.project_id === projectId && v.original_selector === q.original && !!v.healed_selector && typeof v.confidence === 'number';
      };
      const matches = await store.memory.searchSimilarFailures(org, { query_embedding: await embed(q), match_count: 5, similarity_threshold: o.similarityThreshold ?? 0.7 }, 'failures', usable);
      for (const m of matches) {
        const v = m.value as Remembered;
        if (!usable(m) || !v.healed_selector || typeof v.confidence !== 'number') continue;
        if (reverted.has(v.healed_selector) || discredited.has(v.healed_selector) || v.healed_selector === cacheFix?.healed_selector || fixes.some((f) => f.healed === v.healed_selector)) continue;
        fixes.push({ source: 'memory', healed: v.healed_selector, healedLocator: v.healed_locator ?? v.healed_selector, confidence: v.confidence, patternId: v.pattern_id, evidence: m.similarity });
      }

      if (cacheFix) fixes.push({ source: 'cache', healed: cacheFix.healed_selector, healedLocator: cacheFix.healed_locator, confidence: cacheFix.confidence, patternId: cacheFix.pattern_id ?? undefined });
      return { fixes, reverted: [...reverted] };
    },

    async cachedFixes() {
      const entries = await store.healingCache.listForProject(org, projectId);
      return entries.map((e) => ({ original: e.original_selector, urlPattern: e.url_pattern, locator: e.healed_locator }));
    },

    async recordSuccess(q, heal) {
      const patterns = await store.healingPatterns.forSelector(org, projectId, q.original);
      let pattern = patterns.find((p) => p.id === heal.patternId) ?? patterns.find((p) => p.healed_selector === heal.healed && !p.reverted_at);
      if (!pattern) {
        pattern = await store.healingPatterns.create(org, {
          project_id: projectId,
          pattern_type: patternType(q.original, heal.healed),
          original_selector: q.original,
          healed_selector: heal.healed,
          healed_locator: heal.healedLocator,
          confidence: heal.confidence,
          method: heal.method,
        });
      }
      await store.healingPatterns.recordSuccess(org, pattern.id);

      if (heal.fromCache) await store.healingCache.recordHit(org, cacheKey(q));
      else await store.healingCache.put(org, { ...cacheKey(q), healed_selector: heal.healed, healed_locator: heal.healedLocator, confidence: heal.confidence, method: heal.method, pattern_id: pattern.id });

      const embedding = await embed(q);
      const fix = { project_id: projectId, original_selector: q.original, healed_selector: heal.healed, healed_locator: heal.healedLocator, confidence: heal.confidence, method: heal.method, pattern_id: pattern.id };
      await store.memory.put(org, {
        namespace: 'failures',
        key: `failure:${projectId}:${stableKey(`${q.original}|${q.urlPattern}|${q.failureClass}`)}`,
        value: { ...fix, url_pattern: q.urlPattern, failure_class: q.failureClass, error_message: q.failureText.slice(0, 2000), test_id: q.testId ?? null, ...(q.flow && { flow: q.flow }) },
        embedding,
      });
      await store.memory.put(org, { namespace: 'fixes', key: `fix:${projectId}:${stableKey(`${q.original}->${heal.healed}`)}`, value: fix, embedding });
    },

    async recordFailure(q, fix) {
      if (fix.patternId && (await store.healingPatterns.get(org, fix.patternId))) await store.healingPatterns.recordFailure(org, fix.patternId);
      if (fix.source === 'cache') await store.healingCache.delete(org, cacheKey(q));
    },

    async completed(q, outcome) {
      const method = outcome.heal?.method ?? 'dom_similarity';
      await store.healingPatterns.countOutcome(org, { success: outcome.success, method, fromCache: outcome.heal?.fromCache ?? false });
      // healing.completed names a test by its UUID; heals outside a stored test (no id) are only counted.
      if (!o.publisher || !q.testId || !UUID.test(q.testId)) return;
      const confidence = outcome.heal?.confidence ?? outcome.bestConfidence;
      const runId = q.runId ?? o.runId;
      await o.publisher.publish(
        healingCompleted(
          { source: eventSources.healer, tenant_id: org, correlation_id: o.correlationId ?? q.runId, clock: o.clock, ids: o.ids },
          {
            test_id: q.testId,
            ...(runId && UUID.test(runId) ? { run_id: runId } : {}),
            ...(UUID.test(o.projectId) ? { project_id: o.projectId } : {}),
            success: outcome.success,
            original_selector: q.original,
            healed_selector: outcome.heal?.healed ?? null,
            confidence: Math.min(1, Math.max(0, confidence)),
            healing_method: method,
            from_cache: outcome.heal?.fromCache ?? false,
            // "applied" in the event means applied automatically under the spec's threshold; a lower configured threshold is reported as not applied.
            applied: outcome.success && confidence >= SELF_HEAL_CONFIDENCE_THRESHOLD,
          },
        ),
      );
    },
  };
}
