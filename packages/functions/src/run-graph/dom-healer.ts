import type { Fingerprint } from '@svc/core/contracts/fingerprint';
import type { Store } from '@svc/core/store/index';
import { Locator as LocatorSchema, type Locator } from '@svc/core/contracts/steps';
import { limits } from '@svc/core/contracts/limits';
import { runTest } from '@svc/core/execution/run-test';
import { StepHealer, defaultHealingPolicy, healableSelector, type HealAttempt, type HealableItem } from '@svc/core/execution/step-healer';
import { describeLocator } from '@svc/core/execution/describe-step';
import type { ArtifactSink, UiSession } from '@svc/core/execution/types';
import { fieldKey, type FingerprintStore } from '@svc/core/execution/fingerprint-store';
import { rankCandidates } from '@svc/core/healing/rank';
import { replacementSelector } from '@svc/core/healing/selector';
import type { ExecutionEnv } from '@svc/core/run-graph/deps';
import type { HealFailure, HealOutcome, Healer } from '@svc/core/run-graph/healer';
import { definitionOf } from '@svc/core/run-graph/spec-to-definition';
import { describeFields, extractFieldsAt, healableFields, itemAt, patched } from './replay-target.ts';
import { confidenceBelow } from '@svc/core/healing/confidence-text';
import { healingSettings } from '@svc/core/healing/service/settings';

export interface DomHealerOptions {
  /** The run's execution resources (its browser, HTTP, SQL, environment, fingerprints). */
  execution(run: { threadId: string; organizationId: string; projectId: string }): Promise<ExecutionEnv>;
  /**
   * Below this the healer proposes nothing ("cannot heal"): default the auto-apply
   * threshold (the project's, else the spec's SELF_HEAL_CONFIDENCE_THRESHOLD), so a
   * proposal is never left waiting for an approval nobody asked for. Lower it (≥ 0.5) to
   * have weaker candidates offered for approval.
   */
  minConfidence?: number;
  /**
   * The project's healing settings (`config.healing`: enabled, threshold): a project with
   * healing disabled is not healed, and its threshold is the patch's auto-apply threshold,
   * as in the in-step healer. Absent → enabled at SELF_HEAL_CONFIDENCE_THRESHOLD.
   */
  settings?(project: { organizationId: string; projectId: string }): Promise<{ enabled: boolean; threshold: number }>;
  /**
   * The healed selectors people reverted for a broken locator (as text) in the project:
   * never proposed again, here as in the in-step healer (POST /api/healing/patterns/{id}/revert).
   */
  reverted?(project: { organizationId: string; projectId: string }, original: string): Promise<string[]>;
}

/**
 * DomHealerOptions.reverted over the store's healing patterns: a fix a person reverted,
 * unless a person applied it again since (apply-fix records a new pattern).
 */
export function revertedFixesIn(store: Store): NonNullable<DomHealerOptions['reverted']> {
  return async (p, original) => {
    const patterns = await store.healingPatterns.forSelector(p.organizationId, p.projectId, original);
    const reapplied = new Set(patterns.filter((x) => !x.reverted_at && x.applied_by).map((x) => x.healed_selector));
    return patterns.filter((x) => x.reverted_at && !reapplied.has(x.healed_selector)).map((x) => x.healed_selector);
  };
}

/** DomHealerOptions.settings from the project's `config.healing` (healingSettings). */
export function projectHealingSettingsIn(store: Store): NonNullable<DomHealerOptions['settings']> {
  return async (p) => healingSettings((await store.projects.get(p.organizationId, p.projectId))?.config).settings;
}

/**
 * The run graph's self_heal node bound to the DOM healer: it opens the app in Chromium,
 * replays the failed test up to the step whose locator found nothing (the real runner:
 * variables, API and SQL steps included), reads the page's element fingerprints there,
 * ranks them against the fingerprint stored for that step — or, in an extract step, for
 * the field the replay stopped at (`<step>.<field>`) — (rankCandidates) and proposes
 * a locator-only patch (replacementSelector) with the ranker's confidence. The graph
 * applies it (or asks for approval) and re-runs the test: that re-run is the validation.
 */
export function createDomHealer(o: DomHealerOptions): Healer {
  return {
    async heal(f: HealFailure, ctx: { signal: AbortSignal }): Promise<HealOutcome> {
      if (!f.organization_id || !f.project_id || !f.thread_id) return { healed: false, reason: 'the failure does not name its run, so it cannot be replayed' };
      const project = { organizationId: f.organization_id, projectId: f.project_id };
      const settings = (await o.settings?.(project)) ?? { enabled: true, threshold: limits.SELF_HEAL_CONFIDENCE_THRESHOLD };
      if (!settings.enabled) return { healed: false, reason: 'healing is disabled for the project (config.healing.enabled)' };
      // The project's threshold binds here as in the in-step healer: a stricter project gets no heal below it (found by QA).
      const threshold = settings.threshold;
      const floor = o.minConfidence ?? threshold;
      const index = typeof f.result.metadata.failed_step === 'number' ? f.result.metadata.failed_step : undefined;
      if (index === undefined) return { healed: false, reason: 'the result does not say which step failed' };
      const target = itemAt(f.test, index);
      const fields = extractFieldsAt(f.test, index);
      // An extract step has no locator of its own: each field reads its element by its own.
      const healable = fields ? healableFields(fields) : [];
      const selector = !fields && target ? healableSelector(target) : undefined;
      if (!selector && !healable.length) return { healed: false, reason: `step ${index + 1} has no locator that can be healed${fields ? ' (its fields are read with all: true, as lists)' : ''}` };
      const env = await o.execution({ threadId: f.thread_id, organizationId: f.organization_id, projectId: f.project_id });
      if (!env.fingerprints) return { healed: false, reason: 'no fingerprint store is configured' };
      const recorded = await env.fingerprints.get(f.test.id).catch(() => ({}) as Record<string, Fingerprint>);
      if (selector && !recorded[index]) return { healed: false, reason: `no fingerprint of the element of step ${index + 1} (${describeLocator(selector)}) was recorded by an earlier passing run` };
      // Which field broke is known only once the replay reaches it; none recorded at all is known now.
      if (!selector && !healable.some(([name]) => recorded[fieldKey(index, name)])) return { healed: false, reason: `no fingerprint of the fields of step ${index + 1} (${describeFields(healable)}) was recorded by an earlier passing run` };
      // Steps before this one that the run healed in-step: the replay (in-step healing off)
      // takes their fixes, or it would stop at the first of them, and the patch carries them.
      const earlier = inStepHealsBefore(f.result.metadata, index);
      let replayed = f.test;
      try {
        for (const h of earlier) replayed = patched(replayed, h.index, h.locator, h.field);
      } catch (err) {
        return { healed: false, reason: `the run's earlier heals no longer fit the test: ${(err as Error).message}` };
      }
      const def = definitionOf(replayed, f.extras);
      if (!def.ok) return { healed: false, reason: def.message };

      const probe = new PageProbe();
      const replay = await runTest(f.test.id, { ...def.definition, assertions: index < replayed.steps.length ? [] : def.definition.assertions }, {
        ...env,
        baseUrl: f.app_url || undefined,
        signal: ctx.signal,
        healer: probe,
        fingerprints: readOnly(env.fingerprints),
        // A replay compares with the baselines but writes nothing: no baseline, no proposal.
        ...(env.baselines ? { baselines: { get: env.baselines.get.bind(env.baselines), put: refuseWrite }, baselineMode: 'none' as const } : {}),
        artifacts: discarded,
        traceOnFailure: false,
      });
      if (ctx.signal.aborted) return { healed: false, reason: 'the run was cancelled' };
      const seen = probe.first;
      if (!seen || replay.failed_step !== index) {
        const where = replay.status === 'failed' ? `it failed at step ${(replay.failed_step ?? 0) + 1} (${replay.failure_kind}): ${replay.error_message}` : 'every step passed';
        return { healed: false, reason: `the replay did not reach the broken locator of step ${index + 1}: ${where}` };
      }
      const broken = fields ? brokenField(seen.item, index, recorded) : { field: undefined, selector: selector!, stored: recorded[index] };
      if ('reason' in broken) return { healed: false, reason: broken.reason };
      const { field, stored } = broken;
      const original = broken.selector;
      const what = field === undefined ? describeLocator(original) : `field ${JSON.stringify(field)} (${describeLocator(original)})`;

      const tried = new Set([describeLocator(original), ...f.previous.flatMap((p) => p.changes.map((c) => String(c.to)))]);
      // A fix a person reverted is never proposed again, here as in the in-step healer.
      const reverted = new Set(await o.reverted?.({ organizationId: f.organization_id, projectId: f.project_id }, describeLocator(original)) ?? []);
      const ranked = rankCandidates(stored, seen.page).filter((r) => seen.page[r.index]?.visible !== false);
      if (!ranked.length) return { healed: false, reason: 'the page has no candidate elements' };
      let refused: string | undefined;
      for (const candidate of ranked) {
        if (candidate.confidence < floor) break;
        const proposal = replacementSelector(seen.page[candidate.index], seen.page);
        if (!proposal || tried.has(describeLocator(proposal.locator))) continue;
        if (reverted.has(describeLocator(proposal.locator))) {
          refused ??= describeLocator(proposal.locator);
          continue;
        }
        return {
          healed: true,
          patch: {
            test: patched(replayed, index, proposal.locator, field),
            // `field` is the path of what changed in the step: `selector`, or an extract field's `fields.<name>.selector`.
            changes: [
              ...earlier.map((h) => ({ step: h.index, field: h.field === undefined ? 'selector' : `fields.${h.field}.selector`, ...(h.field !== undefined && { extract_field: h.field }), from: h.original, to: describeLocator(h.locator), strategy: 'in-step heal of this run' })),
              { step: index, field: field === undefined ? 'selector' : `fields.${field}.selector`, ...(field !== undefined && { extract_field: field }), from: describeLocator(original), to: describeLocator(proposal.locator), strategy: proposal.strategy, element: describeElement(seen.page[candidate.index]) },
            ],
            confidence: Number(candidate.confidence.toFixed(4)),
            threshold,
            kind: 'locator',
            method: 'dom_similarity',
          },
        };
      }
      const best = ranked[0];
      return {
        healed: false,
        reason: best.confidence < floor
          ? `no confident replacement for ${what}: best candidate ${describeElement(seen.page[best.index])} has confidence ${confidenceBelow(best.confidence)} < ${floor}`
          : refused
            ? `no untried replacement for ${what} at confidence ≥ ${floor} (${refused} is a fix a person reverted)`
            : `no untried replacement for ${what} at confidence ≥ ${floor}`,
      };
    },
  };
}

/** The in-step heals an execution recorded (metadata.heals) on items before `index`, in order. */
function inStepHealsBefore(metadata: Record<string, unknown>, index: number): Array<{ index: number; field?: string; original: string; locator: Locator }> {
  const heals = Array.isArray(metadata.heals) ? (metadata.heals as Array<Record<string, unknown>>) : [];
  return heals.flatMap((h) => {
    const parsed = LocatorSchema.safeParse(h.healed_locator);
    return typeof h.index === 'number' && h.index < index && typeof h.original === 'string' && parsed.success
      ? [{ index: h.index, ...(typeof h.field === 'string' && { field: h.field }), original: h.original, locator: parsed.data }]
      : [];
  });
}

/**
 * Stands in for the in-step healer during the replay: at the first locator that finds
 * nothing it reads the page's fingerprints (the page as the failing step saw it) and
 * declines, so the replay stops right there.
 */
class PageProbe extends StepHealer {
  first?: { page: Fingerprint[]; item: HealableItem };
  constructor() {
    super({ ...defaultHealingPolicy, enabled: true });
  }
  override async heal<T>(input: { session: UiSession; item: HealableItem }): Promise<HealAttempt<T>> {
    this.first ??= { page: await input.session.pageFingerprints(), item: input.item };
    return { healed: false, reason: 'replayed for the self_heal node' };
  }
}

/**
 * The extract field the replay stopped at (the probe saw it first), with its recorded
 * fingerprint — or why it cannot be healed: a list (`all: true`), or never recorded.
 */
function brokenField(item: HealableItem, index: number, recorded: Record<string, Fingerprint>): { field: string | undefined; selector: Locator; stored: Fingerprint } | { reason: string } {
  if (item.type !== 'extract' || !('field' in item)) return { reason: `the replay of step ${index + 1} stopped at a locator that is not one of its fields` };
  const selector = healableSelector(item);
  if (!selector) return { reason: `field ${JSON.stringify(item.field)} of step ${index + 1} is read with all: true (a list), which is not healed` };
  const stored = recorded[fieldKey(index, item.field)];
  if (!stored) return { reason: `no fingerprint of field ${JSON.stringify(item.field)} of step ${index + 1} (${describeLocator(selector)}) was recorded by an earlier passing run` };
  return { field: item.field, selector, stored };
}

/** The replay's fingerprints are those of a broken page: they must not overwrite the recorded ones. */
function readOnly(store: FingerprintStore): FingerprintStore {
  return { get: (id) => store.get(id), save: async () => {} };
}

/** Mode none never records a baseline; a replay must not, whatever calls it. */
const refuseWrite = async (): Promise<never> => {
  throw new Error('a healing replay does not write visual baselines');
};

/** The replay is a probe, not a result: its screenshots are not kept (and never replace the run's own). */
const discarded: ArtifactSink = { put: async (name) => `replay/${name}` };

function describeElement(fp: Fingerprint | undefined): string {
  if (!fp) return 'element';
  const text = fp.text ? ` "${fp.text.slice(0, 40)}"` : '';
  return `<${fp.tag ?? '?'}${fp.id ? `#${fp.id}` : ''}>${text}`;
}
