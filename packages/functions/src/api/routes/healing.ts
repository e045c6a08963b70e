import { z } from 'zod';
import type { Hono } from 'hono';
import { listResponse } from '@svc/core/contracts/common';
import { HealingPatternQuery, HealingPatternSchema } from '@svc/core/contracts/healing-pattern';
import type { Fingerprint } from '@svc/core/contracts/fingerprint';
import { notFound, validationFailed } from '@svc/core/errors';
import { eventSources, healingRequested } from '@svc/core/events/producers';
import { healRunThreadId } from '@svc/core/events/healer-consumer';
import { parseFingerprint, isEmptyFingerprint } from '@svc/core/healing/parse-fingerprint';
import { rankPage } from '@svc/core/healing/rank';
import { replacementSelector } from '@svc/core/healing/selector';
import { describeLocator } from '@svc/core/execution/describe-step';
import { tableFingerprintStore } from '@svc/core/store/fingerprints';
import type { HealingPatternRecord } from '@svc/core/store/healing-patterns';
import {
  ApplyFixInput, HealRequestInput, HealingConfigQuery, HealingStatsQuery, ReviewInput, ReviewItemSchema, SuggestFixesInput, SuggestFixesResponse,
} from '@svc/core/healing/service/api-contracts';
import { HealingService, type HealPlanNotes, type HealProposal } from '@svc/core/healing/service/healing-service';
import { storeHealingKnowledge } from '@svc/core/healing/service/store-knowledge';
import { localEmbedder } from '@svc/core/healing/service/embedder';
import { failureClass, urlPathPattern } from '@svc/core/healing/service/failure-class';
import { locatorMatchCount } from '@svc/core/healing/service/locator-match';
import { patternType } from '@svc/core/healing/service/pattern-type';
import type { HealQuery } from '@svc/core/healing/service/knowledge';
import { healingSettings } from '@svc/core/healing/service/settings';
import { healTarget, isTargetIssue } from '@svc/core/healing/service/heal-target';
import { ModelChooser } from '@svc/core/healing/service/model-chooser';
import type { AppDeps } from '../deps.ts';
import type { ApiEnv } from '../env.ts';
import { actorOf } from '../actor.ts';
import { mountRoute, type RouteDef } from '../route.ts';
import { sourceOfRun } from '../../run-graph/one-test-run.ts';
import { confidenceBelow } from '@svc/core/healing/confidence-text';

const IdParams = z.strictObject({ id: z.uuid().describe('Healing pattern id') });
const Json = z.record(z.string(), z.unknown());

/**
 * Healing endpoints (issue #4 item 11; docs/healing.md "Endpoints"). Suggestions are
 * never applied by these calls; applying happens in a run, after the re-run passes, or
 * by a person through apply-fix. Everything is scoped to the caller's organization.
 */
export function healingRoutes(app: Hono<ApiEnv>, deps: AppDeps, registry: RouteDef[]) {
  const { store } = deps;
  const embedder = deps.embedder ?? localEmbedder();
  const suggestions = deps.metrics.counter('healing_suggestions_total', 'Healing suggestions produced', ['method', 'applied']);

  const projectOf = async (orgId: string, projectId: string) => {
    const project = await store.projects.get(orgId, projectId);
    if (!project) throw notFound('project');
    return project;
  };
  const knowledgeFor = (orgId: string, projectId: string) => storeHealingKnowledge({ store, organizationId: orgId, projectId, embedder });
  // Model choice among ambiguous candidates, paid by the caller's organization; none without a configured model.
  const chooserFor = (orgId: string) => (deps.llm?.configured ? new ModelChooser({ llm: deps.llm, organizationId: orgId }) : undefined);

  mountRoute(app, deps, registry, {
    method: 'post', path: '/api/healing/suggest-fixes', summary: 'Rank replacement selectors for a broken selector (never applied)', tags: ['healing'], auth: 'viewer', body: SuggestFixesInput,
    responses: { 200: { description: 'suggestions, best first', schema: SuggestFixesResponse }, 404: { description: 'no such project in this organization' } },
  }, async ({ c, body, access }) => {
    const project = await projectOf(access.organizationId, body.project_id);
    const { settings } = healingSettings(project.config);
    const page = body.candidates.map((raw) => parseFingerprint(raw) ?? {});
    const notes: string[] = [];
    const out: z.input<typeof SuggestFixesResponse>['suggestions'] = [];

    // Remembered fixes first: they are what the healer would try first.
    const query = healQuery(body.original_selector, body.url, '');
    const remembered = await knowledgeFor(access.organizationId, project.id).lookup(query);
    for (const fix of remembered.fixes) {
      if (out.some((s) => s.healed_selector === fix.healed)) continue;
      const count = locatorMatchCount(fix.healedLocator, page);
      const unique = count === undefined ? null : count === 1;
      out.push({ rank: 0, index: null, healed_selector: fix.healed, locator: fix.healedLocator, strategy: fix.source, unique, confidence: fix.confidence, score: null, method: fix.source, auto_apply: fix.confidence >= settings.threshold && unique !== false });
    }

    const ranking = rankPage(body.fingerprint, page, { top: body.limit });
    notes.push(...ranking.notes);
    if (ranking.error) notes.push(`no ranking: ${ranking.error}`);
    for (const r of ranking.ranked) {
      const proposal = replacementSelector(page[r.index], page);
      if (!proposal) {
        notes.push(`candidate ${r.index}: no selector can address it`);
        continue;
      }
      const healed = describeLocator(proposal.locator);
      if (out.some((s) => s.healed_selector === healed)) continue;
      if (remembered.reverted.includes(healed)) {
        notes.push(`${healed}: a person reverted this fix`);
        continue;
      }
      const visible = page[r.index]?.visible !== false;
      out.push({ rank: 0, index: r.index, healed_selector: healed, locator: proposal.locator, strategy: proposal.strategy, unique: proposal.unique, confidence: r.confidence, score: r.score, method: 'dom_similarity', auto_apply: r.confidence >= settings.threshold && proposal.unique && visible });
    }
    const chooser = chooserFor(access.organizationId);
    let model: z.input<typeof SuggestFixesResponse>['model'] = null;
    const stored = ranking.error ? undefined : parseFingerprint(body.fingerprint);
    if (chooser && stored && chooser.isAmbiguous(ranking.ranked, settings.threshold)) {
      const reverted = new Set(remembered.reverted);
      const verdict = await chooser.choose({ stored, page, shown: chooser.shortlist(page, ranking.ranked, reverted), reverted });
      const decision = chooser.decide(verdict, ranking.ranked, settings.threshold);
      const picked = decision.action === 'promote' ? decision.candidate : decision.suggestion;
      model = { action: decision.action, reason: decision.reason, index: picked?.pageIndex ?? null, healed_selector: picked?.healed ?? null };
      for (const s of out) {
        if (s.method !== 'dom_similarity') continue;
        if (decision.action === 'withhold') s.auto_apply = false;
        if (decision.action === 'promote' && s.index === decision.candidate.pageIndex) Object.assign(s, { method: 'llm', confidence: decision.confidence, auto_apply: true });
      }
    }
    const ranked = out.slice(0, body.limit).map((s, i) => ({ ...s, rank: i + 1 }));
    for (const s of ranked) suggestions.inc({ method: s.method, applied: 'false' });
    return c.json({ project_id: project.id, original_selector: body.original_selector, threshold: settings.threshold, suggestions: ranked, notes, model });
  });

  mountRoute(app, deps, registry, {
    method: 'post', path: '/api/healing/apply-fix', summary: 'Record a fix applied by a person as a healing pattern', tags: ['healing'], auth: 'member', body: ApplyFixInput,
    responses: { 201: { description: 'the recorded pattern', schema: HealingPatternSchema }, 404: { description: 'no such project in this organization' } },
  }, async ({ c, body, access, principal }) => {
    await projectOf(access.organizationId, body.project_id);
    const pattern = await store.healingPatterns.create(access.organizationId, {
      project_id: body.project_id,
      pattern_type: body.pattern_type ?? patternType(body.original_selector, body.healed_selector),
      original_selector: body.original_selector,
      healed_selector: body.healed_selector,
      healed_locator: body.healed_locator,
      confidence: body.confidence,
      method: 'manual',
      git_commit: body.git_commit ?? null,
      git_context: body.git_context ?? null,
      applied_by: actorOf(principal),
    });
    suggestions.inc({ method: 'manual', applied: 'true' });
    c.set('audit', { action: 'healing.apply_fix', resource: `healing_pattern:${pattern.id}`, metadata: { project_id: body.project_id, original_selector: body.original_selector, healed_selector: body.healed_selector } });
    return c.json(HealingPatternSchema.parse(pattern), 201);
  });

  // Both paths are in the issue; one handler.
  for (const path of ['/api/v1/healing/patterns', '/api/healing/patterns']) {
    mountRoute(app, deps, registry, {
      method: 'get', path, summary: 'List healing patterns (applied fixes), newest first', tags: ['healing'], auth: 'viewer', query: HealingPatternQuery,
      responses: { 200: { description: 'patterns', schema: listResponse(HealingPatternSchema) }, 404: { description: 'no such project in this organization' } },
    }, async ({ c, query, access }) => {
      if (query.project_id) await projectOf(access.organizationId, query.project_id);
      const page = await store.healingPatterns.list(access.organizationId, query);
      return c.json({ items: page.items.map((p) => HealingPatternSchema.parse(p)), next_cursor: page.next_cursor });
    });
  }

  mountRoute(app, deps, registry, {
    method: 'post', path: '/api/healing/patterns/:id/revert', summary: 'Revert a healing pattern: it is kept but never applied again', tags: ['healing'], auth: 'member', params: IdParams,
    responses: { 200: { description: 'the reverted pattern', schema: HealingPatternSchema }, 404: { description: 'no such pattern in this organization' } },
  }, async ({ c, params, access, principal }) => {
    const pattern = await store.healingPatterns.revert(access.organizationId, params.id, actorOf(principal));
    if (!pattern) throw notFound('healing pattern');
    // The cache would otherwise keep applying the fix for up to 7 days.
    if (pattern.project_id) await store.healingCache.invalidate(access.organizationId, pattern.project_id, pattern.original_selector, pattern.healed_selector);
    c.set('audit', { action: 'healing.revert', resource: `healing_pattern:${pattern.id}`, metadata: { original_selector: pattern.original_selector, healed_selector: pattern.healed_selector } });
    return c.json(HealingPatternSchema.parse(pattern));
  });

  mountRoute(app, deps, registry, {
    method: 'get', path: '/api/healing/config', summary: 'Healing limits, cache TTL, available modes and a project\'s overrides', tags: ['healing'], auth: 'viewer', query: HealingConfigQuery,
    responses: { 200: { description: 'configuration', schema: Json }, 404: { description: 'no such project in this organization' } },
  }, async ({ c, query, access }) => {
    const project = query.project_id ? await projectOf(access.organizationId, query.project_id) : undefined;
    const { settings, overrides, ignored } = healingSettings(project?.config);
    return c.json({
      ...(project ? { project_id: project.id } : {}),
      enabled: settings.enabled,
      threshold: settings.threshold,
      max_retries: settings.max_retries,
      cache_ttl_seconds: settings.cache_ttl_seconds,
      project_overrides: overrides,
      ignored_overrides: ignored,
      modes: {
        dom_similarity: { available: true },
        patterns: { available: true, trusted_after_successes: 2 },
        cache: { available: true, ttl_seconds: settings.cache_ttl_seconds },
        memory: { available: true, embedder: embedder.model, similarity_threshold: 0.7 },
        git: { available: false, reason: 'git-aware healing is not served by this endpoint set' },
        llm: deps.llm?.configured
          ? { available: true, task_type: 'heal_selector', models: deps.llm.describe(), use: 'asked to choose among the top candidates of an ambiguous ranking; may only promote the ranker\'s own pick just below the threshold (docs/healing.md "With a model")' }
          : { available: false, reason: 'no language model is configured (SVC_LLM_PROVIDERS; docs/intelligence.md "Models")' },
      },
    });
  });

  mountRoute(app, deps, registry, {
    method: 'get', path: '/api/healing/stats', summary: 'Healing counts: heals applied, success rate, cache hits, by method, top patterns', tags: ['healing'], auth: 'viewer', query: HealingStatsQuery,
    responses: { 200: { description: 'statistics', schema: Json }, 404: { description: 'no such project in this organization' } },
  }, async ({ c, query, access }) => {
    if (query.project_id) await projectOf(access.organizationId, query.project_id);
    const counts = await store.healingPatterns.stats(access.organizationId);
    const patterns = (await store.healingPatterns.all(access.organizationId)).filter((p) => !query.project_id || p.project_id === query.project_id);
    const attempts = counts.heals_applied + counts.heals_failed;
    return c.json({
      heals_applied: counts.heals_applied,
      heals_failed: counts.heals_failed,
      success_rate: attempts ? counts.heals_applied / attempts : null,
      cache_hits: counts.cache_hits,
      cache_hit_rate: counts.heals_applied ? counts.cache_hits / counts.heals_applied : null,
      by_method: counts.by_method,
      patterns: { total: patterns.length, active: patterns.filter((p) => !p.reverted_at).length, reverted: patterns.filter((p) => p.reverted_at).length },
      top_patterns: patterns
        .filter((p) => !p.reverted_at)
        .sort((a, b) => b.success_count - a.success_count || b.confidence - a.confidence)
        .slice(0, 10)
        .map((p) => HealingPatternSchema.parse(p)),
    });
  });

  mountRoute(app, deps, registry, {
    method: 'post', path: '/api/healing/review', summary: 'Say for each pattern or suggestion whether it is safe to auto-apply, and why', tags: ['healing'], auth: 'viewer', body: ReviewInput,
    responses: { 200: { description: 'one verdict per item', schema: z.object({ threshold: z.number(), items: z.array(ReviewItemSchema) }) }, 404: { description: 'a pattern or project not in this organization' } },
  }, async ({ c, body, access }) => {
    const project = body.project_id ? await projectOf(access.organizationId, body.project_id) : undefined;
    const { settings } = healingSettings(project?.config);
    const items: z.input<typeof ReviewItemSchema>[] = [];
    for (const id of body.pattern_ids ?? []) {
      const p = await store.healingPatterns.get(access.organizationId, id);
      if (!p) throw notFound('healing pattern');
      items.push(reviewPattern(p, settings.threshold));
    }
    for (const s of body.suggestions ?? []) {
      const reasons: string[] = [];
      let safe = true;
      const rule = (ok: boolean, yes: string, no: string) => {
        reasons.push(ok ? yes : no);
        if (!ok) safe = false;
      };
      rule(s.kind === 'locator', 'changes only a locator', `changes ${s.kind === 'assertion' ? 'an assertion' : `the ${s.kind}`}: always needs approval`);
      rule(s.confidence >= settings.threshold, `confidence ${s.confidence.toFixed(2)} ≥ ${settings.threshold}`, `confidence ${confidenceBelow(s.confidence)} < ${settings.threshold}`);
      rule(s.visible !== false, s.visible ? 'target is visible' : 'visibility not reported: checked again when applied', 'target is not visible');
      rule(s.unique !== false, s.unique ? 'selector matches exactly one element' : 'uniqueness not reported: checked again when applied', 'selector matches more than one element');
      rule(s.original_selector !== s.healed_selector, 'selector changes', 'healed selector equals the original');
      items.push({ pattern_id: null, original_selector: s.original_selector, healed_selector: s.healed_selector, confidence: s.confidence, safe_to_auto_apply: safe, reasons });
    }
    return c.json({ threshold: settings.threshold, items });
  });

  mountRoute(app, deps, registry, {
    method: 'post', path: '/api/heal', summary: 'Ask for a test to be healed: publishes healing.requested, which starts a heal run of the test (heal_run names its thread), and returns what the healer would do', tags: ['healing'], auth: 'member', body: HealRequestInput,
    responses: { 202: { description: 'requested; with the decision when page candidates were given', schema: Json }, 400: { description: 'a bad field (named): a run_id of another project than the test\'s, a step or field the test does not have' }, 404: { description: 'no such test (or run_id) in this organization' } },
  }, async ({ c, body, access, principal }) => {
    const test = await store.tests.get(access.organizationId, body.test_id);
    if (!test) throw notFound('test');
    const project = await store.projects.get(access.organizationId, test.project_id);
    const { settings } = healingSettings(project?.config);
    // The step (or the extract step's field) named: its selector, its fingerprint's key, where a fix goes.
    const target = healTarget(test.steps, body.step_index, body.field);
    if (isTargetIssue(target)) throw validationFailed([target]);
    const original = body.original_selector ?? (target?.selector !== undefined ? describeLocator(target.selector) : undefined);
    if (!original && target?.fields) throw validationFailed([{ path: 'field', message: `step ${target.step_index + 1} is an extract step: name the field whose selector broke (${target.fields.join(', ')})` }]);
    if (!original) throw validationFailed([{ path: 'original_selector', message: 'required when step_index does not name a step with a selector' }]);
    const errorMessage = body.error_message ?? `healing requested for ${original}`;
    const where = target ? { target: { step_index: target.step_index, field: target.field, path: target.path } } : {};
    // The heal run tests the code of the run named: it must be a run of the test's project.
    if (body.run_id) await sourceOfRun(store, access.organizationId, body.run_id, test.project_id);

    const event = healingRequested(
      { source: eventSources.api, tenant_id: access.organizationId, correlation_id: c.get('requestId') },
      { test_id: test.id, project_id: test.project_id, original_selector: original, error_message: errorMessage, requested_by: actorOf(principal), ...(body.step_index !== undefined ? { step_index: body.step_index } : {}), ...(body.field !== undefined ? { field: body.field } : {}), ...(body.run_id ? { run_id: body.run_id } : {}) },
    );
    await deps.publisher.publish(event);
    // The healer consumer starts this run from the event (docs/healing.md "Heal runs").
    const thread = healRunThreadId(event.event_id);
    const healRun = { thread_id: thread, status_url: `/api/v1/test/status/${thread}`, stream_url: `/stream/${thread}` };

    const query = { ...healQuery(original, body.url, errorMessage), testId: test.id };
    const knowledge = knowledgeFor(access.organizationId, test.project_id);
    if (!settings.enabled) return c.json({ event_id: event.event_id, ...where, decision: 'disabled', reason: 'healing is disabled for this project (config.healing.enabled)', proposals: [] }, 202);
    if (!body.candidates) {
      const remembered = await knowledge.lookup(query);
      return c.json({ event_id: event.event_id, ...where, decision: 'queued', reason: 'no page candidates given: the heal run executes the test, heals a broken locator on the page and validates the fix by running the test again (healing.completed says how it ended)', heal_run: healRun, proposals: remembered.fixes.map((f) => ({ healed_selector: f.healed, locator: f.healedLocator, confidence: f.confidence, method: f.source, from_cache: f.source === 'cache' })) }, 202);
    }

    let stored: Fingerprint | undefined = body.fingerprint ? parseFingerprint(body.fingerprint) : undefined;
    if (!body.fingerprint && target) stored = (await tableFingerprintStore(store.table, access.organizationId).get(test.id))[target.fingerprint_key];
    if (stored && isEmptyFingerprint(stored)) stored = undefined;
    const page = body.candidates.map((raw) => parseFingerprint(raw) ?? {});
    const service = new HealingService({ threshold: settings.threshold, maxRetries: settings.max_retries }, knowledge, chooserFor(access.organizationId));
    const notes: HealPlanNotes = { rejected: [], bestConfidence: 0 };
    const proposals: HealProposal[] = [];
    for await (const p of service.proposals({ query, stored, page: async () => page }, notes)) proposals.push(p);
    for (const p of proposals) suggestions.inc({ method: p.method, applied: 'false' });
    const reason = proposals.length
      ? `${proposals.length} fix(es) at confidence ≥ ${settings.threshold}; the first whose re-run passes is applied and recorded`
      : notes.belowThreshold
        ? `no confident replacement: best confidence ${confidenceBelow(notes.belowThreshold.confidence)} < ${settings.threshold}`
        : notes.rejected.join('; ') || 'the page has no candidate elements';
    return c.json({
      event_id: event.event_id,
      ...where,
      heal_run: healRun,
      decision: proposals.length ? 'heal' : 'no_heal',
      reason,
      rejected: notes.rejected,
      proposals: proposals.map((p) => ({ healed_selector: p.healed, locator: p.locator, confidence: p.confidence, method: p.method, from_cache: p.fromCache, strategy: p.strategy, index: p.candidateIndex ?? null })),
    }, 202);
  });
}

function healQuery(original: string, url: string | undefined, message: string): HealQuery {
  return { original, url: url ?? '', urlPattern: urlPathPattern(url ?? '/'), failureClass: failureClass(message || 'matched 0 elements'), failureText: message };
}

function reviewPattern(p: HealingPatternRecord, threshold: number): z.input<typeof ReviewItemSchema> {
  const reasons: string[] = [];
  let safe = true;
  const rule = (ok: boolean, yes: string, no: string) => {
    reasons.push(ok ? yes : no);
    if (!ok) safe = false;
  };
  rule(!p.reverted_at, 'not reverted', `reverted by ${p.reverted_by ?? 'someone'} at ${p.reverted_at}`);
  rule(p.confidence >= threshold, `confidence ${p.confidence.toFixed(2)} ≥ ${threshold}`, `confidence ${confidenceBelow(p.confidence)} < ${threshold}`);
  rule(p.failure_count <= p.success_count, `succeeded ${p.success_count}× and failed ${p.failure_count}×`, `failed more often (${p.failure_count}×) than it succeeded (${p.success_count}×)`);
  reasons.push('locator-only fix; the element must still match exactly one visible element when applied');
  return { pattern_id: p.id, original_selector: p.original_selector, healed_selector: p.healed_selector, confidence: p.confidence, safe_to_auto_apply: safe, reasons };
}
