import type { TestDefinition, Step, Assertion, UiAssertion, ApiAssertion, DbAssertion, UiStep, VisualAssertion, AccessibilityAssertion, ExtractField } from '../contracts/steps.ts';
import type { AccessibilityOutcome } from '../contracts/accessibility.ts';
import { checkAccessibility } from '../accessibility/check-accessibility.ts';
import type { Fingerprint } from '../contracts/fingerprint.ts';
import { StepFailure, type FailureKind, type StepContext, type StepResult, type AssertionResult, type TestExecutionResult, type UiDriver, type UiSession, type SqlDriver, type HttpExchange, type PageHtml, type HttpResult, type SqlResult, type ArtifactSink } from './types.ts';
import { interpolate, redactSecrets, redactSecretsDeep, type VariableScope } from './variables.ts';
import { describeStep, describeAssertion, describeLocator } from './describe-step.ts';
import { checkApiAssertion, loadJsonSchemaSupport } from './api/check-api-assertion.ts';
import { failOnUncheckedServerError, statusIsChecked } from './api/server-error-check.ts';
import { checkDbAssertion } from './db/check-db-assertion.ts';
import { dbSaveSource, saveFromResponse, saveVariables } from './save-variables.ts';
import { redactTraceZip } from './trace-redaction.ts';
import { fieldKey, type FingerprintStore, type StepFingerprints } from './fingerprint-store.ts';
import { healableSelector, StepHealer, type AppliedHeal, type ExtractFieldItem, type HealableItem, type TestOutcome } from './step-healer.ts';
import type { BaselineMode, BaselineStore, VisualOutcome } from '../visual/baseline-store.ts';
import { checkVisual } from '../visual/check-visual.ts';
import { fileSafe } from '../file-safe.ts';
import { runExtract } from './extract/run-extract.ts';
import type { ExtractModel } from './extract/ask-model.ts';
import { maskExtracted } from './extract/mask-extracted.ts';
import { describeOrigin, type FlowOrigin } from '../flows/expand-flows.ts';

/** What one test needs to run. The UI driver is opened lazily: API and DB tests never start Chromium. */
export interface TestRunDeps {
  ui?: () => Promise<UiDriver>;
  sql?: SqlDriver;
  http: HttpExchange;
  artifacts: ArtifactSink;
  baseUrl?: string;
  environment: Record<string, string>;
  secrets: Record<string, string>;
  signal?: AbortSignal;
  now?: () => number;
  log?: (level: 'debug' | 'info' | 'warn' | 'error', message: string) => void;
  /** Where the latest fingerprint of each step's element is kept across runs. */
  fingerprints?: FingerprintStore;
  /** Locator-only self-healing, shared by the tests of one run (one heal per element per run). */
  healer?: StepHealer;
  /** Keep a Playwright trace of failed UI tests (default true). */
  traceOnFailure?: boolean;
  /** Accepted screenshots for visual assertions; without it a visual assertion fails with 'configuration'. */
  baselines?: BaselineStore;
  /** What the run does with baselines (default missing: record where none exists). */
  baselineMode?: BaselineMode;
  onStep?: (testId: string, step: StepResult) => void;
  /** A failed UI test's page as it failed (after its HTML is stored as `failure.html`); live streams show it. */
  onDomSnapshot?: (testId: string, page: PageHtml & { step: number | null; artifact: string }) => void;
  /** The model extract steps with an instruction ask (paid by the run's organization); without it they fail with NO_MODEL. */
  extractModel?: ExtractModel;
  /** Per step of `test` (its flows expanded, flows/expand-flows.ts): the flow step it came from; results and errors name it. */
  origins?: ReadonlyArray<FlowOrigin | undefined>;
  /**
   * After a UI test passed, wait for its page to settle (no request in flight for quietMs, at
   * most maxMs, within the test's timeout) before reading its console errors: a run that
   * judges the console (a regression test from a production error) ended before an error
   * thrown after a fetch (found by QA).
   */
  settle?: { quietMs: number; maxMs: number };
}

const uiAssertionTypes = new Set(['visible', 'hidden', 'text', 'value', 'url', 'title', 'count', 'attribute', 'enabled', 'disabled', 'no_console_error']);
const apiAssertionTypes = new Set(['status', 'header', 'json', 'json_schema', 'response_time']);
const uiStepTypes = new Set(['goto', 'click', 'dblclick', 'fill', 'type', 'press', 'select', 'check', 'uncheck', 'hover', 'upload', 'scroll', 'wait-for', 'screenshot', 'mock']);

/** Grace after the deadline for a driver to give up on its own before the runner abandons it. */
const ABANDON_GRACE_MS = 5_000;
/** How long the failure screenshot may take: it is evidence, not worth holding the run for. */
const FAILURE_CAPTURE_TIMEOUT_MS = 5_000;
/**
 * How long each step of closing a test's browser work may take (stopping a navigation, the
 * failure HTML, the trace, closing the context). A page whose script never yields (`for(;;)`)
 * answers none of Chromium's page commands — Page.stopLoading, a screenshot, page.content()
 * never return — and held the test, and the run, forever (found by QA). Closing the context
 * still works: it is done by the browser process, not the page's.
 */
const CLEANUP_STEP_TIMEOUT_MS = 10_000;
/** How long a page may take to answer Page.stopLoading before it counts as stuck (a live page answers in milliseconds). */
const STOP_LOADING_TIMEOUT_MS = 3_000;
/** A failed UI test keeps at most this much of its page's HTML (2 MB; beyond it the page is cut, and says nothing more about a locator). */
export const MAX_DOM_SNAPSHOT_CHARS = 2_000_000;

/**
 * Runs one test: steps in order, then the trailing assertions. The first failing step
 * stops the steps (the rest are skipped); trailing assertions are all evaluated so a
 * report shows every broken expectation. Never throws: every outcome is data.
 */
export async function runTest(testId: string, test: TestDefinition, deps: TestRunDeps): Promise<TestExecutionResult> {
  const now = deps.now ?? Date.now;
  const startedMs = now();
  const deadline = startedMs + test.timeout_ms;
  const controller = new AbortController();
  const onAbort = () => controller.abort(deps.signal?.reason);
  deps.signal?.addEventListener('abort', onAbort, { once: true });
  const timer = setTimeout(() => controller.abort(new StepFailure('timeout', `test exceeded its timeout of ${test.timeout_ms} ms`)), test.timeout_ms);

  const scope: VariableScope = { saved: {}, parameters: test.parameters, secrets: deps.secrets, environment: deps.environment };
  const steps: StepResult[] = [];
  const fingerprints: StepFingerprints = {};
  const screenshots: string[] = [];
  const visual: VisualOutcome[] = [];
  const accessibility: AccessibilityOutcome[] = [];
  let session: UiSession | undefined;
  let lastResponse: HttpResult | undefined;
  let lastQuery: SqlResult | undefined;
  // Each heal, in the order made: a step's, or (with `field`) one of an extract step's fields.
  const heals: Array<{ index: number; field?: string; heal: AppliedHeal }> = [];
  /** Each heal's learning, decided once the test has ended (step-healer.ts TestOutcome). */
  const settles: Array<(outcome: TestOutcome) => Promise<void>> = [];
  const extracted = new Map<number, unknown>();
  // The fingerprints of earlier runs, read when a step first needs healing: most tests never
  // do, and this test's own fingerprints are saved only when it ends.
  let stored: Promise<StepFingerprints> | undefined;
  const storedFingerprint = async (key: number | string): Promise<Fingerprint | undefined> => {
    stored ??= deps.fingerprints && deps.healer?.policy.enabled ? deps.fingerprints.get(testId).catch(() => ({})) : Promise.resolve({});
    return (await stored)[key];
  };
  let assertionsPassed = 0;
  let assertionsFailed = 0;
  const assertionResults: AssertionResult[] = [];
  let failure: { kind: FailureKind; message: string; stack?: string; step?: number } | undefined;
  const redact = (s: string) => redactSecrets(s, deps.secrets);
  const log = deps.log ?? (() => {});

  const openSession = async () => {
    if (session) return session;
    if (!deps.ui) throw new StepFailure('configuration', 'this test has browser steps but no browser is configured');
    const driver = await deps.ui();
    // Browser settings may name variables (a parameter set's device or locale).
    const browser = test.browser && interpolate(test.browser, scope);
    session = await driver.openSession({ baseUrl: deps.baseUrl, trace: deps.traceOnFailure !== false, ...(browser && { browser }) });
    return session;
  };

  const stepContext = (timeoutMs?: number): StepContext => ({
    signal: controller.signal,
    deadline: Math.min(deadline, timeoutMs !== undefined ? now() + timeoutMs : deadline),
    log,
  });

  async function checkAssertion(assertion: Assertion, ctx: StepContext, index: number) {
    // A page assertion with no page: say so at once, not after waiting on a blank one (found by QA: an api test's `visible` assertion waited 5 s, then "matched 0 elements").
    if (!session && (assertion.type === 'visual' || assertion.type === 'accessibility' || uiAssertionTypes.has(assertion.type))) {
      throw new StepFailure('configuration', `a ${assertion.type} assertion checks a page, and no step before it opened one (a goto step comes first)${test.type !== 'ui' ? `; this is ${test.type === 'api' ? 'an' : 'a'} ${test.type} test` : ''}`);
    }
    if (assertion.type === 'visual') {
      const s = await openSession();
      const visualDeps = { session: s, baselines: deps.baselines, mode: deps.baselineMode ?? 'missing', artifacts: deps.artifacts, testId, folder: safeName(testId), now };
      // An element's locator heals like any step's; the comparison runs on the healed one.
      // A healed locator's re-run (a new object) only confirms against the baseline.
      await keepingOutcome(visual, 'visual', index, () => withHealing(index, assertion, s, ctx, (a) => checkVisual(a as VisualAssertion, index, ctx, { ...visualDeps, confirmOnly: a !== assertion })));
    } else if (assertion.type === 'accessibility') {
      const s = await openSession();
      const name = assertion.name ?? describeAssertion(assertion);
      // A scoped element's locator heals like any step's; the check then runs on the healed element.
      await keepingOutcome(accessibility, 'accessibility', index, () => withHealing(index, assertion, s, ctx, (a) => checkAccessibility(a as AccessibilityAssertion, name, s, ctx)));
    } else if (uiAssertionTypes.has(assertion.type)) {
      const s = await openSession();
      const out = await withHealing(index, assertion as UiAssertion, s, ctx, (a) => s.check(a as UiAssertion, ctx));
      if (out.fingerprint) fingerprints[index] = out.fingerprint;
    } else if (apiAssertionTypes.has(assertion.type)) {
      if (assertion.type === 'json_schema') await loadJsonSchemaSupport();
      checkApiAssertion(assertion as ApiAssertion, lastResponse);
    } else {
      checkDbAssertion(assertion as DbAssertion, lastQuery);
    }
  }

  /**
   * Runs a check whose outcome the result keeps (visual, accessibility), also when it fails:
   * the failure carries the outcome in its details under `key`. The outcome is kept masked:
   * an accessibility finding quotes the element's HTML and the page's URL, which may hold a
   * secret the test sent (found by QA).
   */
  async function keepingOutcome<O>(list: O[], key: string, index: number, check: () => Promise<{ outcome: O; fingerprint?: Fingerprint }>): Promise<void> {
    try {
      const out = await check();
      list.push(redactSecretsDeep(out.outcome, deps.secrets));
      if (out.fingerprint) fingerprints[index] = out.fingerprint;
    } catch (err) {
      const outcome = err instanceof StepFailure ? (err.details?.[key] as O | undefined) : undefined;
      if (outcome) list.push(redactSecretsDeep(outcome, deps.secrets));
      throw err;
    }
  }

  /**
   * Runs a UI step or assertion — or one field of an extract step (`field`) — and when its
   * locator finds nothing and a healer is set, tries a healed locator (and only that: a
   * timeout or a failed expectation is never healed).
   */
  async function withHealing<T>(index: number, item: HealableItem, s: UiSession, ctx: StepContext, run: (item: HealableItem) => Promise<T>, field?: string): Promise<T> {
    // A locator healed before (earlier in this run, or in the healing cache): wait for it or
    // its fix, and when only the fix is there, heal at once rather than after the locate timeout.
    const fix = deps.healer && s.firstPresent ? await deps.healer.knownFix(item, s.url()) : undefined;
    if (fix && (await s.firstPresent!([healableSelector(item)!, fix], ctx)) === 1) {
      const desc = describeLocator(healableSelector(item)!);
      return healed(index, item, s, ctx, run, field, new StepFailure('locator', `${item.type}: ${desc} matched 0 elements`, { selector: desc, count: 0 }));
    }
    try {
      return await run(item);
    } catch (err) {
      if (!(err instanceof StepFailure) || err.kind !== 'locator' || !deps.healer || controller.signal.aborted) throw err;
      return healed(index, item, s, ctx, run, field, err);
    }
  }

  /** A locator failure healed, or the failure with why it was not. */
  async function healed<T>(index: number, item: HealableItem, s: UiSession, ctx: StepContext, run: (item: HealableItem) => Promise<T>, field: string | undefined, err: StepFailure): Promise<T> {
    const stored = await storedFingerprint(field === undefined ? index : fieldKey(index, field));
    const attempt = await deps.healer!.heal({ item, stored, session: s, ctx, rerun: run, error: { message: err.message, details: err.details }, testId, stepIndex: index, ...(deps.origins?.[index] && { origin: deps.origins[index] }) });
    if (!attempt.healed) throw new StepFailure('locator', `${err.message}; not healed: ${attempt.reason}`, err.details);
    heals.push({ index, ...(field !== undefined && { field }), heal: attempt.heal });
    settles.push(attempt.settle);
    log('info', `healed ${field === undefined ? '' : `field ${JSON.stringify(field)}: `}${attempt.heal.original} → ${attempt.heal.healed} (confidence ${attempt.heal.confidence.toFixed(2)})`);
    return attempt.result;
  }

  /** One field of an extract step: its element located, fingerprinted and healed as a step's is. */
  async function readField(index: number, name: string, field: ExtractField, s: UiSession, ctx: StepContext) {
    const item: ExtractFieldItem = { type: 'extract', field: name, ...field };
    const out = await withHealing(index, item, s, ctx, (healed) => s.extractField!(name, { ...field, selector: (healed as ExtractFieldItem).selector }, ctx), name);
    if (out.fingerprint) fingerprints[fieldKey(index, name)] = out.fingerprint;
    return out.value;
  }

  /** A passed step's heals as its result shows them: `healed` for a step's one locator, `healed_fields` for an extract step's fields. */
  function healsOf(index: number): Pick<StepResult, 'healed' | 'healed_fields'> {
    const note = (h: AppliedHeal) => ({ original: h.original, healed: h.healed, confidence: h.confidence });
    const mine = heals.filter((h) => h.index === index);
    const own = mine.find((h) => h.field === undefined);
    const fields = mine.flatMap((h) => (h.field === undefined ? [] : [{ field: h.field, ...note(h.heal) }]));
    return { ...(own && { healed: note(own.heal) }), ...(fields.length && { healed_fields: fields }) };
  }

  async function performStep(step: Step, ctx: StepContext, index: number): Promise<string | undefined> {
    if (uiStepTypes.has(step.type)) {
      const s = await openSession();
      const out = await withHealing(index, step as UiStep, s, ctx, (healed) => s.perform(healed as UiStep, ctx));
      if (out.fingerprint) fingerprints[index] = out.fingerprint;
      if (out.screenshot) return deps.artifacts.put(`${safeName(testId)}/step-${index}.png`, out.screenshot, 'image/png');
      return undefined;
    }
    if (step.type === 'request') {
      lastResponse = await deps.http(step, { ...ctx, baseUrl: deps.baseUrl });
      failOnUncheckedServerError(lastResponse, statusIsChecked(test, index));
      if (step.save) Object.assign(scope.saved, saveFromResponse(step.save, lastResponse));
      return undefined;
    }
    if (step.type === 'sql') {
      if (!deps.sql) throw new StepFailure('configuration', 'this test has SQL steps but no database driver is configured');
      // A connection URL carries a password, so it is usually a secret (masked in reports).
      const url = deps.environment[step.connection.url_env] ?? deps.secrets[step.connection.url_env];
      if (!url) throw new StepFailure('configuration', `environment variable ${step.connection.url_env} (the ${step.connection.driver} connection URL) is not set for this project, as a variable or a secret`);
      lastQuery = await deps.sql.query({ driver: step.connection.driver, url }, step.statement, step.params, ctx);
      if (step.save) Object.assign(scope.saved, saveVariables(step.save, dbSaveSource(lastQuery)));
      return undefined;
    }
    if (step.type === 'assert') {
      await checkAssertion(step.assertion, ctx, index);
      return undefined;
    }
    if (step.type === 'extract') {
      const s = await openSession();
      const value = await runExtract(step, s, ctx, deps.extractModel, (name, field) => readField(index, name, field, s, ctx));
      extracted.set(index, value);
      if (step.save_as) scope.saved[step.save_as] = value;
      return undefined;
    }
    // A use step is replaced by its flow's steps before a test runs (run-graph/spec-to-definition.ts); one here was never expanded.
    if (step.type === 'use') throw new StepFailure('configuration', `use of flow ${JSON.stringify(step.flow)} was not expanded: flows are expanded before a test runs (flows/expand-flows.ts)`);
    throw new StepFailure('unsupported', `unknown step type ${(step as { type: string }).type}`);
  }

  try {
    for (let i = 0; i < test.steps.length; i++) {
      const raw = test.steps[i];
      const t0 = now();
      const origin = deps.origins?.[i];
      const from = origin ? { origin } : {};
      if (failure) {
        steps.push({ index: i, type: raw.type, name: stepName(raw), description: redact(describeStep(raw)), status: 'skipped', duration_ms: 0, ...from });
        continue;
      }
      try {
        const step = interpolate(raw, scope);
        const ctx = stepContext(step.timeout_ms);
        const screenshot = await withDeadline(performStep(step, ctx, i), controller.signal, ctx.deadline + ABANDON_GRACE_MS);
        if (screenshot) screenshots.push(screenshot);
        if (step.type === 'assert') assertionsPassed++;
        const result: StepResult = { index: i, type: raw.type, name: stepName(raw), description: redact(describeStep(step)), status: 'passed', duration_ms: now() - t0, ...from, ...(screenshot ? { screenshot } : {}), ...healsOf(i), ...(extracted.has(i) ? { extracted: maskExtracted(extracted.get(i), deps.secrets), ...(step.type === 'extract' && step.save_as ? { save_as: step.save_as } : {}) } : {}) };
        steps.push(result);
        deps.onStep?.(testId, result);
      } catch (err) {
        const f = asFailure(err, controller.signal);
        if (raw.type === 'assert') assertionsFailed++;
        // A flow's step is named by where it is written: "step 4 (sign in › step 2: fill #email)".
        failure = { kind: f.kind, message: redact(`step ${i + 1} (${origin ? `${describeOrigin(origin)}: ` : ''}${describeStep(raw)}): ${f.message}`), stack: f.stack, step: i };
        const result: StepResult = { index: i, type: raw.type, name: stepName(raw), description: redact(describeStep(raw)), status: 'failed', duration_ms: now() - t0, ...from, error: { kind: f.kind, message: redact(f.message) } };
        steps.push(result);
        deps.onStep?.(testId, result);
      }
    }

    // A step failed: the trailing assertions were not checked.
    // One trailing assertion's result: where it is, its name, what it checked (variables filled once it got that far).
    const assertionResult = (j: number, checked: Assertion, status: AssertionResult['status'], durationMs = 0, error?: AssertionResult['error']): AssertionResult => ({
      index: j,
      ...(test.assertions[j].name ? { name: test.assertions[j].name } : {}),
      description: redact(describeAssertion(checked)),
      status,
      duration_ms: durationMs,
      ...(error && { error }),
    });
    if (failure) for (const [j, raw] of test.assertions.entries()) assertionResults.push(assertionResult(j, raw, 'skipped'));
    else {
      // Every failed trailing assertion is said, not only the first (which sets the kind).
      const failedAssertions: string[] = [];
      let stopped = false;
      for (let j = 0; j < test.assertions.length; j++) {
        const raw = test.assertions[j];
        // Past a timeout or a cancel, the rest are not checked: said as skipped.
        if (stopped) {
          assertionResults.push(assertionResult(j, raw, 'skipped'));
          continue;
        }
        const index = test.steps.length + j;
        const t0 = now();
        let assertion = raw;
        try {
          assertion = interpolate(raw, scope);
          await withDeadline(checkAssertion(assertion, stepContext(assertion.timeout_ms), index), controller.signal, deadline + ABANDON_GRACE_MS);
          assertionsPassed++;
          // A healed locator is said on the assertion as on a step: reports list it with the step heals.
          const own = healsOf(index).healed;
          assertionResults.push({ ...assertionResult(j, assertion, 'passed', now() - t0), ...(own && { healed: own }) });
        } catch (err) {
          const f = asFailure(err, controller.signal);
          assertionsFailed++;
          const message = redact(`assertion ${j + 1} (${raw.name ? `${raw.name}: ` : ''}${describeAssertion(assertion)}): ${f.message}`);
          failedAssertions.push(message);
          assertionResults.push(assertionResult(j, assertion, 'failed', now() - t0, { kind: f.kind, message: redact(f.message) }));
          failure ??= { kind: f.kind, message, stack: f.stack, step: index };
          stopped = f.kind === 'timeout' || f.kind === 'cancelled';
        }
      }
      // One line each, the first first: a reader (or a match on the message) sees the first as before.
      if (failure && failedAssertions.length > 1) failure.message = failedAssertions.join('\n');
    }
  } finally {
    clearTimeout(timer);
    deps.signal?.removeEventListener('abort', onAbort);
  }

  if (failure && heals.length && failure.kind !== 'cancelled') {
    // A heal before the failure may be why: it can pick a near-twin of a removed element.
    const before = heals.filter((h) => failure!.step === undefined || h.index < failure!.step);
    if (before.length) failure.message += `\n(healed earlier in this test: ${before.map((h) => `step ${h.index + 1} ${h.heal.original} → ${h.heal.healed} (confidence ${h.heal.confidence.toFixed(2)})`).join('; ')}; a heal may have picked the wrong element, and is not learned from a failed test)`;
  }
  for (const settle of settles) await settle(!failure ? { status: 'passed' } : failure.kind === 'cancelled' || failure.kind === 'timeout' ? { status: 'unknown' } : { status: 'failed', message: failure.message });

  if (deps.settle && session?.settle && !failure) {
    const maxMs = Math.max(0, Math.min(deps.settle.maxMs, deadline - now()));
    if (maxMs > 0) await within(session.settle({ quietMs: deps.settle.quietMs, maxMs }), maxMs + 1_000);
  }
  const diagnostics = session?.diagnostics() ?? { consoleErrors: [], failedRequests: [], pagesVisited: [] };
  let trace: string | undefined;
  let domSnapshot: string | undefined;
  if (session) {
    if (failure && failure.kind !== 'cancelled') {
      // A goto cut off by the timeout leaves the page navigating: stop it, or the capture
      // below waits for a page that may never load, holding the test well past its timeout.
      // Page.stopLoading is answered at once by any page that still runs its event loop: one
      // that does not answer is stuck in a script, and would answer no capture either.
      const answered = !session.stopLoading || (await within(session.stopLoading().then(() => true, () => true), STOP_LOADING_TIMEOUT_MS)) === true;
      if (!answered) {
        failure.message += `\n(the page stopped answering — a script that never yields? — so no failure screenshot or HTML was taken)`;
        log('warn', `test ${testId}: the page did not answer Page.stopLoading within ${STOP_LOADING_TIMEOUT_MS} ms; failure screenshot and HTML skipped`);
      }
      const shot = !answered ? undefined : await within(session.screenshot({ timeoutMs: FAILURE_CAPTURE_TIMEOUT_MS }), FAILURE_CAPTURE_TIMEOUT_MS + 1_000);
      if (shot) screenshots.push(await deps.artifacts.put(`${safeName(testId)}/failure.png`, shot, 'image/png'));
      // The DOM the step failed on, as text: what a person (or a model) reads to see why a locator missed.
      const page = !answered ? undefined : await within(session.html?.(MAX_DOM_SNAPSHOT_CHARS), CLEANUP_STEP_TIMEOUT_MS);
      if (page) {
        // Masked as the trace is (found by QA: a secret the page showed, in its title, text
        // or an attribute, was in failure.html and the live dom_snapshot event unmasked).
        const html = redactSecrets(page.html, deps.secrets);
        domSnapshot = await deps.artifacts.put(`${safeName(testId)}/failure.html`, new TextEncoder().encode(html), 'text/html');
        deps.onDomSnapshot?.(testId, { ...page, html, url: redactSecrets(page.url, deps.secrets), step: failure.step ?? null, artifact: `${safeName(testId)}/failure.html` });
      }
    }
    const zip = await within(session.stopTrace(!!failure), 3 * CLEANUP_STEP_TIMEOUT_MS);
    // Masked as reports are: a trace keeps input values and request bodies.
    if (zip) trace = await deps.artifacts.put(`${safeName(testId)}/trace.zip`, redactTraceZip(zip, deps.secrets), 'application/zip');
    const closed = session.close().then(
      () => true,
      (err: unknown) => {
        log('warn', `closing the browser context failed: ${(err as Error).message}`);
        return true;
      },
    );
    if (!(await within(closed, CLEANUP_STEP_TIMEOUT_MS))) log('warn', `closing the browser context took over ${CLEANUP_STEP_TIMEOUT_MS} ms; left to finish in the background`);
  }
  // Counted once the failure screenshot was tried: it is one of them.
  const screenshotsDropped = session?.screenshotsDropped?.() ?? 0;

  if (deps.fingerprints && Object.keys(fingerprints).length) {
    await deps.fingerprints.save(testId, fingerprints).catch((err) => log('warn', `saving fingerprints failed: ${(err as Error).message}`));
  }

  const finishedMs = now();
  return {
    test_id: testId,
    name: test.name,
    type: test.type,
    status: failure ? 'failed' : heals.length ? 'healed' : 'passed',
    started_at: new Date(startedMs).toISOString(),
    finished_at: new Date(finishedMs).toISOString(),
    duration_ms: finishedMs - startedMs,
    steps,
    assertions_passed: assertionsPassed,
    assertions_failed: assertionsFailed,
    ...(assertionResults.length ? { assertion_results: assertionResults } : {}),
    // A stack only for svc's own errors ('internal'): for a locator, an assertion or a
    // configuration failure it would show svc's code, not the test; the message names the step.
    ...(failure ? { error_message: failure.message, failure_kind: failure.kind, failed_step: failure.step, ...(failure.stack && failure.kind === 'internal' ? { stack_trace: redact(failure.stack) } : {}) } : {}),
    screenshots,
    ...(screenshotsDropped > 0 ? { screenshots_dropped: screenshotsDropped } : {}),
    ...(trace ? { trace } : {}),
    ...(domSnapshot ? { dom_snapshot: domSnapshot } : {}),
    console_errors: diagnostics.consoleErrors.map(redact),
    // A URL may carry a secret the test sent (a token in a query): masked like the rest (found by QA).
    failed_requests: diagnostics.failedRequests.map((f) => ({ ...f, url: redact(f.url), failure: redact(f.failure) })),
    ...(diagnostics.pagesVisited.length ? { pages_visited: diagnostics.pagesVisited.map(redact) } : {}),
    fingerprints,
    ...(visual.length ? { visual } : {}),
    ...(accessibility.length ? { accessibility } : {}),
    metadata: {
      priority: test.priority,
      tags: test.tags,
      ...(heals.length ? { heals: heals.map(({ index, field, heal: h }) => ({ index, ...(field !== undefined && { field }), original: h.original, healed: h.healed, healed_locator: h.healedLocator, confidence: h.confidence, strategy: h.strategy })) } : {}),
    },
  };
}

/**
 * The work's value, or undefined once it fails or `ms` pass (the work is left to settle on
 * its own; its late failure is swallowed). For the best-effort capture after a test.
 */
function within<T>(work: Promise<T> | undefined, ms: number): Promise<T | undefined> {
  if (!work) return Promise.resolve(undefined);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  return Promise.race([work.catch(() => undefined), timeout]).finally(() => clearTimeout(timer));
}

/** Anything thrown becomes a StepFailure; an abort says whether it was the timeout or a cancel. */
function asFailure(err: unknown, signal: AbortSignal): StepFailure {
  if (err instanceof StepFailure) {
    if (signal.aborted && err.kind !== 'timeout' && signal.reason instanceof StepFailure) return signal.reason;
    return err;
  }
  if (signal.aborted) return signal.reason instanceof StepFailure ? signal.reason : new StepFailure('cancelled', 'the run was cancelled');
  const e = err as Error;
  const failure = new StepFailure('internal', e?.message ?? String(err));
  failure.stack = e?.stack;
  return failure;
}

/**
 * Races a step against the test's abort signal and a hard stop, so a driver that hangs
 * cannot hold the run past its timeout (the session is closed afterwards either way).
 */
function withDeadline<T>(work: Promise<T>, signal: AbortSignal, hardStopMs: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const wait = Math.max(0, hardStopMs - Date.now());
    const hard = setTimeout(() => reject(new StepFailure('timeout', 'the step did not finish by its deadline')), wait);
    const onAbort = () => reject(signal.reason instanceof StepFailure ? signal.reason : new StepFailure('cancelled', 'the run was cancelled'));
    if (signal.aborted) onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => {
      clearTimeout(hard);
      signal.removeEventListener('abort', onAbort);
    });
  });
}

function safeName(id: string): string {
  return fileSafe(id).slice(0, 120) || 'test';
}

/** A step's label in reports: its own name, or an assert step's assertion's (the format lets either carry it). */
function stepName(step: Step): string | undefined {
  return step.name ?? (step.type === 'assert' ? step.assertion.name : undefined);
}

