import type { Locator as PwLocator, Page } from 'playwright-core';
import type { Locator, UiStep } from '@svc/core/contracts/steps';
import type { Fingerprint } from '@svc/core/contracts/fingerprint';
import { StepFailure, type StepContext } from '@svc/core/execution/types';
import { actionFailure, isTimeout, msLeft, shortMessage, sleep, stepDeadline, throwIfAborted, withSignal } from './failures.ts';
import { countOf, locateOne, type Located } from './locate.ts';
import { describeLocator, resolveLocator } from './locators.ts';
import { captureFingerprint, isFileInput, selectOptions } from './fingerprint.ts';
import { visionFallback } from './vision-fallback.ts';
import { installMock } from './network-mock.ts';
import type { VisionLocator } from './vision.ts';
import { isMetadataHost, metadataHostMessage } from '@svc/core/net/metadata-hosts';

/** What a step needs from its session. */
export interface StepEnv {
  page: Page;
  baseUrl?: string;
  /** Upper bound on waiting for an element to appear before failing with 'locator'. */
  locateTimeoutMs: number;
  vision?: VisionLocator;
  visionMinConfidence: number;
  /** A screenshot within the run's cap; undefined (a warning is logged) once the cap is reached. */
  screenshot(options: { fullPage?: boolean; timeout: number }, ctx: StepContext): Promise<Uint8Array | undefined>;
}

export interface StepOutcome {
  fingerprint?: Fingerprint;
  screenshot?: Uint8Array;
}

/** A fingerprint must never eat the step's time: it gets at most this long. */
const FINGERPRINT_MS = 2_000;

/** Performs one UI step on the page; throws StepFailure (see failures.ts for the kinds). */
export async function performStep(env: StepEnv, step: UiStep, ctx: StepContext): Promise<StepOutcome> {
  throwIfAborted(ctx.signal, step.type);
  const deadline = stepDeadline(step, ctx);
  return withSignal(run(env, step, ctx, deadline), ctx.signal, step.type);
}

async function run(env: StepEnv, step: UiStep, ctx: StepContext, deadline: number): Promise<StepOutcome> {
  const { page } = env;
  switch (step.type) {
    case 'goto':
      return goto(env, step.url, ctx, deadline);
    case 'click':
      return actOrVision(env, step, ctx, deadline, (l, timeout) => l.click({ timeout, button: step.button, modifiers: step.modifiers }), async (x, y) => {
        for (const m of step.modifiers ?? []) await page.keyboard.down(m);
        await page.mouse.click(x, y, { button: step.button });
        for (const m of step.modifiers ?? []) await page.keyboard.up(m);
      });
    case 'dblclick':
      return actOrVision(env, step, ctx, deadline, (l, timeout) => l.dblclick({ timeout }), (x, y) => page.mouse.dblclick(x, y));
    case 'hover':
      return actOrVision(env, step, ctx, deadline, (l, timeout) => l.hover({ timeout }), (x, y) => page.mouse.move(x, y));
    case 'fill':
      return actOrVision(env, step, ctx, deadline, (l, timeout) => fillOrChoose(l, step.value, timeout), async (x, y) => {
        await page.mouse.click(x, y);
        await page.keyboard.press('ControlOrMeta+A');
        await page.keyboard.press('Backspace');
        if (step.value) await page.keyboard.insertText(step.value);
      });
    case 'type':
      return act(env, step, ctx, deadline, (l, timeout) => l.pressSequentially(step.text, { timeout, delay: step.delay_ms }));
    case 'press':
      if (step.selector !== undefined) return act(env, { type: 'press', selector: step.selector }, ctx, deadline, (l, timeout) => l.press(step.key, { timeout }));
      await attempt(() => page.keyboard.press(step.key), `press: ${step.key}`, deadline, ctx);
      return {};
    case 'select':
      return select(env, step, ctx, deadline);
    case 'check':
      return act(env, step, ctx, deadline, (l, timeout) => l.check({ timeout }));
    case 'uncheck':
      return act(env, step, ctx, deadline, (l, timeout) => l.uncheck({ timeout }));
    case 'upload': {
      const files = step.files.map((f) => ({ name: f.name, mimeType: f.mime_type ?? guessMime(f.name), buffer: Buffer.from(f.content, f.encoding) }));
      return act(env, step, ctx, deadline, async (l, timeout) => {
        // Playwright accepts any <input> here and silently does nothing useful on a text field.
        // Read in Playwright's isolated world (fingerprint engine): no script in the page's own.
        if (!(await isFileInput(l, timeout))) throw new Error('Error: the element is not a file input (<input type="file">)');
        await l.setInputFiles(files, { timeout });
      });
    }
    case 'scroll':
      return scroll(env, step, ctx, deadline);
    case 'wait-for':
      return waitFor(env, step, ctx, deadline);
    case 'mock':
      await attempt(() => installMock(page, step), `mock: ${step.url}`, deadline, ctx);
      return {};
    case 'screenshot': {
      const shot = await attempt(() => env.screenshot({ fullPage: step.full_page, timeout: msLeft(deadline) }, ctx), 'screenshot', deadline, ctx);
      return shot ? { screenshot: shot } : {};
    }
    default: {
      const unknown: never = step;
      throw new StepFailure('unsupported', `the browser driver cannot perform a step of type ${JSON.stringify((unknown as { type?: unknown }).type)}`);
    }
  }
}

type Action = (locator: PwLocator, timeoutMs: number) => Promise<unknown>;

/**
 * A fill of a <select> chooses the option whose value, else whose label, is the text.
 * Chromium refuses to fill a <select>, yet the grammar's field locators include selects
 * (`fill "Topic" with "Billing"`) and the DevTools Recorder writes choosing an option as
 * a change step with the option's value, like typing — converted to a fill, so a
 * recording of any form with a dropdown failed its one run and was never saved (found by
 * QA). Read in Playwright's isolated world (fingerprint engine): no script in the page's own.
 */
async function fillOrChoose(l: PwLocator, value: string, timeout: number): Promise<unknown> {
  const started = Date.now();
  try {
    return await l.fill(value, { timeout });
  } catch (e) {
    if (!/Element is not an <input>, <textarea>/.test(String((e as Error)?.message ?? e))) throw e;
    const left = () => Math.max(1, timeout - (Date.now() - started));
    const values = await selectOptions(l, 'value', left()).catch(() => undefined);
    if (!values?.isSelect) throw e;
    if (values.options.includes(value)) return l.selectOption({ value }, { timeout: left() });
    const labels = await selectOptions(l, 'label', left());
    if (labels.options.includes(value)) return l.selectOption({ label: value }, { timeout: left() });
    throw new Error(`Error: the element is a <select> with no option whose value or label is ${JSON.stringify(value)} (values: ${values.options.map((o) => JSON.stringify(o)).join(', ')})`);
  }
}

/** Runs a page-level action (no element), mapping its errors. */
async function attempt<T>(fn: () => Promise<T>, what: string, deadline: number, ctx: StepContext): Promise<T> {
  if (deadline - Date.now() <= 0) throw new StepFailure('timeout', `${what}: no time left`);
  const t = msLeft(deadline);
  try {
    return await fn();
  } catch (e) {
    throw actionFailure(e, what, t, ctx.signal);
  }
}

/** Locate strictly, fingerprint, then act with the remaining time. */
async function act(env: StepEnv, step: { type: string; selector: Locator }, ctx: StepContext, deadline: number, action: Action): Promise<StepOutcome> {
  const located = await locateOne(env.page, step.selector, step.type, deadline, env.locateTimeoutMs, true);
  // Typing with a delay and uploading take as long as they take: only the test's deadline bounds them.
  return actOn(located, step.type, ctx, deadline, action, step.type === 'type' || step.type === 'upload' ? undefined : env.locateTimeoutMs);
}

/** The least time an action gets to become actionable and be done (see actOn). */
const ACTION_FLOOR_MS = 3_000;

/** Acts on a located element; its fingerprint was read with the locate (before acting: the action may navigate). */
async function actOn({ locator, desc, fingerprint: located }: Located, type: string, ctx: StepContext, deadline: number, action: Action, waitMs?: number): Promise<StepOutcome> {
  const fingerprint = located ?? (await captureFingerprint(locator, Math.min(FINGERPRINT_MS, msLeft(deadline))));
  // Waiting for the element to be actionable (visible, enabled, not covered) is part of
  // waiting for the element: bounded like the locate, not by the test's own timeout (10
  // minutes by default: a hidden button held a test that long; found by QA). The bound
  // covers the action itself too, so it is never below ACTION_FLOOR_MS: a short locate
  // budget (a test's, or a user's) made fills on a busy machine time out.
  const t = waitMs === undefined ? msLeft(deadline) : Math.min(msLeft(deadline), Math.max(waitMs, ACTION_FLOOR_MS));
  try {
    await action(locator, t);
  } catch (e) {
    throw actionFailure(e, `${type}: ${desc}`, t, ctx.signal);
  }
  return fingerprint ? { fingerprint } : {};
}

/** Like act, but a 'locator' failure falls back to vision coordinates when a model is configured (spec rule 6). */
async function actOrVision(
  env: StepEnv,
  step: Extract<UiStep, { type: 'click' | 'dblclick' | 'hover' | 'fill' }>,
  ctx: StepContext,
  deadline: number,
  action: Action,
  atPoint: (x: number, y: number) => Promise<unknown>,
): Promise<StepOutcome> {
  let located;
  try {
    located = await locateOne(env.page, step.selector, step.type, deadline, env.locateTimeoutMs, true);
  } catch (e) {
    if (!(e instanceof StepFailure) || e.kind !== 'locator') throw e;
    return visionFallback(env, step, e, ctx, deadline, atPoint);
  }
  return actOn(located, step.type, ctx, deadline, action, env.locateTimeoutMs);
}

// ---------------------------------------------------------------- goto

export function resolveUrl(url: string, baseUrl: string | undefined): string {
  try {
    return new URL(url, baseUrl).href;
  } catch {
    throw new StepFailure('configuration', baseUrl ? `goto: ${JSON.stringify(url)} is not a valid URL (base ${baseUrl})` : `goto: ${JSON.stringify(url)} is relative and no base URL is configured (a server run takes it from the project's app URL or the run's app_url; svc run from --url)`);
  }
}

async function goto(env: StepEnv, rawUrl: string, ctx: StepContext, deadline: number): Promise<StepOutcome> {
  const url = resolveUrl(rawUrl, env.baseUrl);
  const { protocol, hostname: host } = new URL(url);
  // The browser runs on svc's machine: a file: (or view-source:, chrome: …) URL read its files
  // (the data folder's key file, first-admin.json, every organization's table) into the
  // report. Found by QA. Only web pages are opened; an API test's request is held to the same.
  if (protocol !== 'http:' && protocol !== 'https:') {
    throw new StepFailure('configuration', `goto: ${JSON.stringify(url)}: svc opens http and https URLs only, got ${protocol.replace(/:$/, '')}: (serve the page over HTTP to test it)`, { url });
  }
  if (isMetadataHost(host)) throw new StepFailure('configuration', `goto: ${metadataHostMessage(host)}`, { url });
  if (deadline - Date.now() <= 0) throw new StepFailure('timeout', `goto: ${url}: no time left`);
  const t = msLeft(deadline);
  try {
    const response = await env.page.goto(url, { timeout: t, waitUntil: 'load' });
    if (response && response.status() >= 400) ctx.log('warn', `goto: ${url} answered HTTP ${response.status()}`);
    return {};
  } catch (e) {
    if (ctx.signal.aborted) throw new StepFailure('cancelled', `goto: ${url}: cancelled`);
    if (isTimeout(e)) throw new StepFailure('timeout', `goto: ${url} did not load within ${t} ms`, { url });
    const msg = shortMessage(e);
    const net = /net::ERR_[A-Z0-9_]+/.exec(msg);
    throw new StepFailure('navigation', net ? `goto: ${url} failed: ${net[0]}` : `goto: ${url} failed: ${msg}`, { url, ...(net && { error: net[0] }) });
  }
}

// ---------------------------------------------------------------- select

/** Time kept back from a select step's deadline for its last read of the options. */
const SELECT_LAST_READ_MS = 300;

async function select(env: StepEnv, step: Extract<UiStep, { type: 'select' }>, ctx: StepContext, deadline: number): Promise<StepOutcome> {
  const { locator, desc } = await locateOne(env.page, step.selector, 'select', deadline, env.locateTimeoutMs);
  const by: 'label' | 'value' = step.label !== undefined ? 'label' : 'value';
  const wanted = step.values ?? [(step.label ?? step.value) as string];
  // Options may be filled in by script: wait for them within the locate window, then fail clearly instead of timing out.
  // The polling stops short of the deadline, so a step timeout within the locate window ends
  // with what the options are, not with the last read timing out (found by QA: "timed out after 1 ms").
  const until = Math.min(deadline - SELECT_LAST_READ_MS, Date.now() + env.locateTimeoutMs);
  let probe: { isSelect: boolean; missing: string[]; options: string[] } | undefined;
  for (;;) {
    try {
      // Read in Playwright's isolated world (fingerprint engine): no script in the page's own.
      const { isSelect, options } = await selectOptions(locator, by, msLeft(deadline));
      probe = { isSelect, options, missing: isSelect ? wanted.filter((w) => !options.includes(w)) : [] };
    } catch (e) {
      // A read cut off by the deadline after an earlier one: that one says what the options were.
      if (probe && !ctx.signal.aborted) break;
      throw actionFailure(e, `select: ${desc}`, msLeft(deadline), ctx.signal);
    }
    if (!probe.isSelect || probe.missing.length === 0 || Date.now() >= until) break;
    await sleep(Math.min(100, until - Date.now()), ctx.signal);
  }
  if (!probe.isSelect) throw new StepFailure('locator', `select: ${desc} is not a <select> element`, { selector: desc });
  if (probe.missing.length > 0) {
    throw new StepFailure('assertion', `select: ${desc} has no option with ${by} ${probe.missing.map((m) => JSON.stringify(m)).join(', ')} (options: ${probe.options.map((o) => JSON.stringify(o)).join(', ')})`, { selector: desc, missing: probe.missing, options: probe.options });
  }
  const values = wanted.map((w) => (by === 'label' ? { label: w } : { value: w }));
  // Options may have been filled in since the locate: fingerprint the element as it is now.
  return actOn({ locator, desc }, 'select', ctx, deadline, (l, timeout) => l.selectOption(values, { timeout }), env.locateTimeoutMs);
}

// ---------------------------------------------------------------- scroll

async function scroll(env: StepEnv, step: Extract<UiStep, { type: 'scroll' }>, ctx: StepContext, deadline: number): Promise<StepOutcome> {
  const { page } = env;
  let outcome: StepOutcome = {};
  if (step.selector !== undefined) outcome = await act(env, { type: 'scroll', selector: step.selector }, ctx, deadline, (l, timeout) => l.scrollIntoViewIfNeeded({ timeout }));
  if (step.to !== undefined) {
    const to = step.to;
    await attempt(() => page.evaluate((where) => window.scrollTo(window.scrollX, where === 'top' ? 0 : document.documentElement.scrollHeight), to), `scroll: to ${to}`, deadline, ctx);
  }
  if (step.x !== undefined || step.y !== undefined) {
    const dx = step.x ?? 0;
    const dy = step.y ?? 0;
    await attempt(() => page.mouse.wheel(dx, dy), `scroll: by (${dx}, ${dy})`, deadline, ctx);
    await settleScroll(page, deadline);
  }
  return outcome;
}

/** mouse.wheel does not wait for the (possibly smooth) scroll: wait until the position stops moving. */
async function settleScroll(page: Page, deadline: number): Promise<void> {
  const until = Math.min(deadline, Date.now() + 1_000);
  let last = '';
  let stable = 0;
  while (Date.now() < until && stable < 2) {
    await sleep(50);
    const pos = await page.evaluate(() => `${window.scrollX},${window.scrollY}`).catch(() => last);
    stable = pos === last ? stable + 1 : 0;
    last = pos;
  }
}

// ---------------------------------------------------------------- wait-for

async function waitFor(env: StepEnv, step: Extract<UiStep, { type: 'wait-for' }>, ctx: StepContext, deadline: number): Promise<StepOutcome> {
  const { page } = env;
  if (step.ms !== undefined) {
    const left = deadline - Date.now();
    // Waiting past the deadline cannot succeed: fail now rather than idle until it.
    if (step.ms > left) throw new StepFailure('timeout', `wait-for: ${step.ms} ms is longer than the ${Math.max(0, Math.floor(left))} ms left`);
    await sleep(step.ms, ctx.signal);
    throwIfAborted(ctx.signal, 'wait-for');
    return {};
  }
  if (step.url !== undefined) {
    const url = step.url;
    const t = msLeft(deadline);
    try {
      await page.waitForURL(url, { timeout: t });
      return {};
    } catch (e) {
      if (isTimeout(e)) throw new StepFailure('timeout', `wait-for: URL ${JSON.stringify(url)} not reached within ${t} ms (current URL: ${page.url()})`);
      throw actionFailure(e, `wait-for: URL ${JSON.stringify(url)}`, t, ctx.signal);
    }
  }
  const selector = step.selector!;
  const state = step.state ?? 'visible';
  const desc = describeLocator(selector);
  const locator = resolveLocator(page, selector);
  const t = msLeft(deadline);
  try {
    await locator.waitFor({ state, timeout: t });
  } catch (e) {
    if (!isTimeout(e)) throw actionFailure(e, `wait-for: ${desc}`, t, ctx.signal);
    const count = await countOf(locator, 'wait-for', desc);
    if ((state === 'visible' || state === 'attached') && count === 0) throw new StepFailure('locator', `wait-for: ${desc} matched 0 elements`, { selector: desc, count });
    throw new StepFailure('timeout', `wait-for: ${desc} did not become ${state} within ${t} ms (${count} matching element${count === 1 ? '' : 's'})`, { selector: desc, count });
  }
  if (state === 'visible' || state === 'attached') {
    const fingerprint = await captureFingerprint(locator, Math.min(FINGERPRINT_MS, msLeft(deadline)));
    return fingerprint ? { fingerprint } : {};
  }
  return {};
}

// ---------------------------------------------------------------- upload

const MIME: Record<string, string> = {
  txt: 'text/plain', csv: 'text/csv', json: 'application/json', html: 'text/html', xml: 'application/xml', pdf: 'application/pdf',
  png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', gif: 'image/gif', svg: 'image/svg+xml', webp: 'image/webp', zip: 'application/zip',
};

function guessMime(name: string): string {
  const ext = /\.([a-z0-9]+)$/i.exec(name)?.[1]?.toLowerCase();
  return (ext && MIME[ext]) || 'application/octet-stream';
}
