import type { Locator, Step, TestDefinition } from '../../contracts/steps.ts';
import { checksNothing } from './confidence.ts';

/** Quality findings on a test: what makes it brittle, slow, unsafe or unable to fail. */
export type Severity = 'high' | 'medium' | 'low';
export interface Finding {
  rule: string;
  severity: Severity;
  /** Index into steps (from 0), when the finding is about one step. */
  step?: number;
  /** Index into the trailing assertions (from 0), when the finding is about one of them. */
  assertion?: number;
  message: string;
  suggestion: string;
}
export interface Review {
  score: number;
  findings: Finding[];
}

const PENALTY: Record<Severity, number> = { high: 25, medium: 10, low: 4 };
const SECRET_FIELD = /pass(word|wd|phrase)?|secret|token|api[-_ ]?key|pin\b|otp|credit|card|cvv|ssn/i;
const API_ASSERTIONS = new Set(['status', 'header', 'json', 'json_schema', 'response_time']);

const locatorText = (l: Locator) => (typeof l === 'string' ? l : JSON.stringify(l));
const isVariable = (v: string) => /\{\{\s*(secrets|env)\.[A-Za-z_]\w*\s*\}\}|\{\{\s*\w+\s*\}\}/.test(v);

/** Why a locator is brittle, or undefined. */
export function brittleness(l: Locator): { severity: Severity; why: string } | undefined {
  if (typeof l === 'object' && 'xpath' in l) return { severity: 'medium', why: 'an XPath follows the page structure' };
  if (typeof l === 'object' && !('css' in l)) return undefined;
  const s = typeof l === 'string' ? l : l.css;
  if (/^(xpath=|\/\/|\/html)/.test(s)) return { severity: 'medium', why: 'an XPath follows the page structure' };
  if (s.startsWith('internal:') || /^(role|text|data-testid|id)=/.test(s)) return undefined;
  if (/:nth-(child|of-type)|:(first|last)-child|>> nth=/.test(s)) return { severity: 'medium', why: 'a position (nth-child) changes when items are added or reordered' };
  const combinators = (s.match(/\s*>\s*|\s+(?=[.#\w[])/g) ?? []).length;
  if (combinators >= 3) return { severity: 'medium', why: `a ${combinators + 1}-level CSS path breaks when the layout changes` };
  if (/\.(css|sc|jsx|emotion|styled)-[a-z0-9]{4,}|\.[a-z]+__[a-z]+--|\.[A-Za-z]+_[a-zA-Z0-9]{5,}\b/.test(s)) return { severity: 'medium', why: 'a generated class name changes with every build' };
  if (/^[.][\w-]+$/.test(s) && !/^\.(todo|item|btn|button)/.test(s)) return { severity: 'low', why: 'a styling class is not a stable identifier' };
  return undefined;
}

function isSecretTarget(l: Locator): boolean {
  return SECRET_FIELD.test(locatorText(l));
}

export function reviewTest(test: Pick<TestDefinition, 'type' | 'steps'> & { assertions?: TestDefinition['assertions'] }): Review {
  const findings: Finding[] = [];
  const steps = test.steps;
  const assertions = test.assertions ?? [];
  const add = (f: Finding) => findings.push(f);

  if (checksNothing(test)) {
    add({ rule: 'no-assertions', severity: 'high', message: 'the test checks nothing: it passes as long as no step throws', suggestion: 'add an assertion on what the user should see (expect heading "…", expect text "…", expect the URL to contain "…") or the response (status, fields)' });
  }
  if (test.type === 'ui' && steps[0] && steps[0].type !== 'goto') {
    add({ rule: 'no-start-page', severity: 'medium', step: 0, message: 'the test does not open a page first, so it depends on where an earlier test left the browser', suggestion: 'start with a goto step (a path, resolved against the base URL)' });
  }

  steps.forEach((s, i) => {
    if (s.type === 'wait-for' && s.ms !== undefined) {
      add({ rule: 'fixed-wait', severity: 'medium', step: i, message: `a fixed wait of ${s.ms} ms makes the test slow and still flaky`, suggestion: 'wait for a condition instead: wait-for a selector or a URL, or assert what should appear (assertions retry)' });
    }
    if ('selector' in s && s.selector !== undefined) {
      const b = brittleness(s.selector as Locator);
      if (b) add({ rule: 'brittle-selector', severity: b.severity, step: i, message: `${locatorText(s.selector as Locator)}: ${b.why}`, suggestion: 'use a role and accessible name ({ "role": "button", "name": "Save" }), a label, or a data-testid' });
    }
    if (s.type === 'assert' && 'selector' in s.assertion && s.assertion.selector !== undefined) {
      const b = brittleness(s.assertion.selector as Locator);
      if (b) add({ rule: 'brittle-selector', severity: b.severity, step: i, message: `${locatorText(s.assertion.selector as Locator)}: ${b.why}`, suggestion: 'use a role and accessible name, a label, or a data-testid' });
    }
    if ((s.type === 'fill' || s.type === 'type') && isSecretTarget(s.selector)) {
      const value = s.type === 'fill' ? s.value : s.text;
      if (value && !isVariable(value)) add({ rule: 'hard-coded-credential', severity: 'high', step: i, message: `a credential is written into the test (${locatorText(s.selector)})`, suggestion: 'use {{secrets.NAME}} so the value stays out of the test and is masked in reports' });
    }
    if (s.type === 'request') {
      const auth = s.auth;
      const literalAuth = auth && ((auth.type === 'bearer' && !isVariable(auth.token)) || (auth.type === 'basic' && !isVariable(auth.password)) || (auth.type === 'header' && !isVariable(auth.value)));
      const literalHeader = Object.entries(s.headers ?? {}).some(([k, v]) => /authorization|api[-_]?key|token|cookie/i.test(k) && !isVariable(v));
      if (literalAuth || literalHeader) add({ rule: 'hard-coded-credential', severity: 'high', step: i, message: 'a token or password is written into the request', suggestion: 'use {{secrets.NAME}} for tokens and passwords' });
      const next = steps[i + 1];
      const checked = (next?.type === 'assert' && API_ASSERTIONS.has(next.assertion.type)) || (i === steps.length - 1 && assertions.some((a) => API_ASSERTIONS.has(a.type)));
      if (!checked) add({ rule: 'unchecked-response', severity: 'low', step: i, message: `the response of ${s.method} ${s.url} is not checked`, suggestion: 'assert its status (and a field) right after the request' });
    }
    if (s.type === 'goto' && /^https?:\/\//.test(s.url)) {
      add({ rule: 'absolute-url', severity: 'low', step: i, message: `${s.url} pins the test to one environment`, suggestion: 'use a path ("/login"): it resolves against the base URL of each run' });
    }
    const prev = steps[i - 1];
    if (prev && JSON.stringify(prev) === JSON.stringify(s) && s.type !== 'press') {
      add({ rule: 'duplicate-step', severity: 'low', step: i, message: `step ${i + 1} repeats step ${i}`, suggestion: 'remove the duplicate, or say why it repeats in the step name' });
    }
    if (s.type === 'click' && navigates(s.selector)) {
      const next = steps[i + 1];
      const waits = !next || next.type === 'wait-for' || next.type === 'assert' || next.type === 'goto';
      if (!waits) add({ rule: 'missing-wait-after-navigation', severity: 'low', step: i, message: 'the click probably opens another page, and the next step acts at once', suggestion: 'assert the new URL or wait for an element of the next page, so a failed navigation is reported where it happens' });
    }
  });
  // The trailing assertions' locators are as brittle as the steps'.
  assertions.forEach((a, j) => {
    if (!('selector' in a) || a.selector === undefined) return;
    const b = brittleness(a.selector as Locator);
    if (b) add({ rule: 'brittle-selector', severity: b.severity, assertion: j, message: `assertion ${j + 1}: ${locatorText(a.selector as Locator)}: ${b.why}`, suggestion: 'use a role and accessible name, a label, or a data-testid' });
  });
  if (steps.length > 60) add({ rule: 'long-test', severity: 'low', message: `${steps.length} steps: a failure is hard to locate`, suggestion: 'split the test into scenarios that each check one thing' });
  const score = Math.max(0, 100 - findings.reduce((sum, f) => sum + PENALTY[f.severity], 0));
  return { score, findings };
}

function navigates(l: Locator): boolean {
  if (typeof l === 'object' && 'role' in l) return l.role === 'link' || (l.role === 'button' && /sign|log|submit|continue|next|save|send/i.test(l.name ?? ''));
  const s = locatorText(l);
  return /type=submit|role=link\b|^a[\s.#[]|^a$/i.test(s);
}
