import type { Locator, Step, TestDefinition } from '../../../contracts/steps.ts';
import { ariaNamed, CLICKED_ROLES, FIELD_ROLES } from '../grammar/locators.ts';
import { invalidStepReason, originOf, pathMatches, recordedTest, relativeUrl, RecordingError, type ConvertedRecording, type SkippedPart } from './types.ts';

/**
 * Chrome DevTools Recorder JSON (the "Export as JSON" of the Recorder panel) → a test.
 * Selector preference: aria (role + name) first, then CSS, then text, then XPath; a
 * pierce/ selector is CSS (Playwright's CSS already pierces open shadow roots).
 */
interface RecorderStep {
  type: string;
  selectors?: Array<string | string[]>;
  url?: string;
  value?: string;
  key?: string;
  assertedEvents?: Array<{ type: string; url?: string; title?: string }>;
  count?: number;
  operator?: '>=' | '==' | '<=';
  visible?: boolean;
  x?: number;
  y?: number;
  timeout?: number;
  [k: string]: unknown;
}

const MODIFIERS: Record<string, string> = { Shift: 'Shift', Control: 'Control', Alt: 'Alt', Meta: 'Meta' };

export function isChromeRecording(v: unknown): v is { title?: string; steps: RecorderStep[] } {
  return typeof v === 'object' && v !== null && Array.isArray((v as { steps?: unknown }).steps) && (v as { steps: unknown[] }).steps.every((s) => typeof s === 'object' && s !== null && typeof (s as { type?: unknown }).type === 'string');
}

export function convertChromeRecording(rec: unknown, opts: { name?: string } = {}): ConvertedRecording {
  if (!isChromeRecording(rec)) throw new RecordingError('not a Chrome DevTools Recorder recording: expected { "title", "steps": [{ "type": … }] }');
  if (rec.steps.length === 0) throw new RecordingError('the recording has no steps');
  if (rec.title !== undefined && rec.title !== null && typeof rec.title !== 'string') throw new RecordingError(`the title must be a string, got ${typeof rec.title}`, 'recording.title');
  const steps: Step[] = [];
  const skipped: SkippedPart[] = [];
  let guessed = 0;
  const held: string[] = [];
  const firstUrl = rec.steps.find((s) => s.type === 'navigate')?.url;
  const origin = originOf(typeof firstUrl === 'string' ? firstUrl : '');
  const skip = (i: number, s: RecorderStep, reason: string) => skipped.push({ at: i, what: s.type, reason });

  rec.steps.forEach((s, i) => {
    // A malformed step (an empty URL or selector, a negative count, a number where text belongs) is skipped naming its field.
    const add = (step: Step) => {
      const invalid = invalidStepReason(step);
      if (invalid) skip(i, s, invalid);
      else steps.push(step);
    };
    const needTarget = (build: (l: Locator) => Step, kind: 'click' | 'field' = 'click') => {
      const l = bestSelector(s.selectors, kind);
      if (!l) return skip(i, s, 'no usable selector (expected aria/, CSS, text/, xpath/ or pierce/ selectors)');
      if (l.guessed) guessed++;
      add(build(l.locator));
    };
    switch (s.type) {
      case 'setViewport':
        return skip(i, s, 'the viewport is a run setting, not a test step');
      case 'navigate':
        if (typeof s.url !== 'string') return skip(i, s, 'navigate without a url');
        add({ type: 'goto', url: relativeUrl(s.url, origin) });
        break;
      case 'click':
        needTarget((selector) => ({ type: 'click', selector, ...(s.button === 'secondary' ? { button: 'right' as const } : s.button === 'auxiliary' ? { button: 'middle' as const } : {}) }));
        break;
      case 'doubleClick':
        needTarget((selector) => ({ type: 'dblclick', selector }));
        break;
      case 'hover':
        needTarget((selector) => ({ type: 'hover', selector }));
        break;
      case 'change':
        if (typeof s.value !== 'string') return skip(i, s, 'change without a value');
        needTarget((selector) => ({ type: 'fill', selector, value: s.value! }), 'field');
        break;
      case 'keyDown':
        if (!s.key) return skip(i, s, 'keyDown without a key');
        if (MODIFIERS[s.key]) {
          held.push(MODIFIERS[s.key]);
          return;
        }
        add({ type: 'press', key: [...held, s.key].join('+') });
        break;
      case 'keyUp':
        // The press step above already released the key; only modifiers need forgetting.
        if (s.key && MODIFIERS[s.key]) held.splice(held.indexOf(MODIFIERS[s.key]), 1);
        return;
      case 'scroll':
        if (s.selectors?.length) needTarget((selector) => ({ type: 'scroll', selector }));
        else add({ type: 'scroll', x: s.x ?? 0, y: s.y ?? 0 });
        break;
      case 'waitForElement': {
        const l = bestSelector(s.selectors, 'click');
        if (!l) return skip(i, s, 'no usable selector');
        if (s.count !== undefined && s.count !== 1) {
          const bound = s.operator === '>=' ? { min: s.count } : s.operator === '<=' ? { max: s.count } : { equals: s.count };
          add({ type: 'assert', assertion: { type: 'count', selector: l.locator, ...bound } });
        } else add({ type: 'wait-for', selector: l.locator, state: s.visible === false ? 'hidden' : 'visible' });
        break;
      }
      case 'waitForExpression':
        return skip(i, s, 'JavaScript expressions are not supported in the test format; use an assertion instead');
      case 'close':
        return skip(i, s, 'closing the page is implicit at the end of a test');
      default:
        return skip(i, s, `step type "${s.type}" is not supported`);
    }
    for (const e of Array.isArray(s.assertedEvents) ? s.assertedEvents : []) {
      if (typeof e !== 'object' || e === null || e.type !== 'navigation') continue;
      if (e.url) add({ type: 'assert', assertion: { type: 'url', ...(typeof e.url === 'string' ? pathMatches(e.url, origin) : { equals: e.url }) } });
      if (e.title) add({ type: 'assert', assertion: { type: 'title', equals: e.title } });
    }
  });
  if (steps.length === 0) throw new RecordingError(`no step of the recording could be converted: ${skipped.map((x) => `step ${x.at} (${x.what}): ${x.reason}`).join('; ')}`);
  const considered = rec.steps.filter((s) => s.type !== 'keyUp').length;
  const done = Math.max(0, considered - new Set(skipped.map((x) => x.at)).size);
  const test = recordedTest(opts.name ?? rec.title ?? undefined, 'Converted from a Chrome DevTools Recorder recording', steps);
  const confidence = Math.round((done / Math.max(1, considered)) * (1 - 0.2 * (guessed / Math.max(1, done))) * 1000) / 1000;
  return { format: 'chrome-recorder', test, skipped, confidence };
}

/** aria/Name[role="button"] → role + name; aria/Name → button-or-link (or field); else CSS, text, XPath. */
export function bestSelector(selectors: RecorderStep['selectors'], kind: 'click' | 'field'): { locator: Locator; guessed: boolean } | undefined {
  const flat = (Array.isArray(selectors) ? selectors : []).map((s) => (Array.isArray(s) ? s : [s])).filter((chain) => chain.length > 0 && chain.every((p) => typeof p === 'string'));
  // Chains of several parts cross iframes or shadow roots; CSS pierces open shadow roots, so the last part is enough there.
  const last = (chain: string[]) => chain[chain.length - 1];
  const css = flat.map(last).find((s) => !/^(aria|text|xpath|pierce)\//.test(s) && !/^\/\//.test(s));
  // An id or test id the recording also gives names one element for sure: better than guessing a role for a bare aria/Name
  // (which matched the page's "Sign in" heading beside its "Sign in" button; found by QA).
  const certain = css !== undefined && /^(?:#[\w-]+|\[data-(?:testid|test-id|test|cy|qa)=["']?[^"'\]]+["']?\])$/.test(css);
  for (const chain of flat) {
    const s = last(chain);
    if (!s.startsWith('aria/')) continue;
    const m = /^aria\/(.*?)(?:\[role="([a-z]+)"\])?$/.exec(s);
    if (!m || !m[1]?.trim()) continue;
    if (m[2]) return { locator: { role: m[2], name: m[1] }, guessed: false };
    if (certain) break;
    return { locator: ariaNamed(m[1], kind === 'field' ? FIELD_ROLES : CLICKED_ROLES), guessed: true };
  }
  if (css) return { locator: css, guessed: false };
  const pierce = flat.map(last).find((s) => s.startsWith('pierce/'));
  if (pierce) return { locator: pierce.slice('pierce/'.length), guessed: false };
  const text = flat.map(last).find((s) => s.startsWith('text/'));
  if (text) return { locator: { text: text.slice('text/'.length) }, guessed: false };
  const xpath = flat.map(last).find((s) => s.startsWith('xpath/'));
  if (xpath) return { locator: { xpath: xpath.slice('xpath/'.length) }, guessed: false };
  return undefined;
}
