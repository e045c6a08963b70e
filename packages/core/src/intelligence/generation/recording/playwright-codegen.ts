import type * as TS from 'typescript';
import type { Assertion, Locator, Step, TestDefinition } from '../../../contracts/steps.ts';
import { escapeRegex, invalidStepReason, originOf, pathMatches, recordedTest, relativeUrl, RecordingError, type ConvertedRecording, type SkippedPart } from './types.ts';

/**
 * A Playwright codegen script (`npx playwright codegen`) → a test. The script is parsed
 * with the TypeScript compiler API, never evaluated: only literal arguments are read.
 * Every statement becomes a step or is listed as skipped with its line and the reason.
 */

type Lit = string | number | boolean | null | RegExp | Lit[] | { [k: string]: Lit } | undefined;
interface Call {
  name: string;
  args: TS.NodeArray<TS.Expression>;
}
/** `page.getByRole('button').click()` → root "page", calls [getByRole, click]. */
interface Chain {
  root: string | { expect: TS.Expression; soft: boolean };
  calls: Call[];
  props: string[];
}

export function looksLikePlaywright(source: string): boolean {
  return /\bpage\s*\.\s*(goto|getBy\w+|locator|click|fill)\s*\(/.test(source) || /@playwright\/test/.test(source);
}

export async function convertPlaywrightScript(source: string, opts: { name?: string } = {}): Promise<ConvertedRecording> {
  if (!looksLikePlaywright(source)) throw new RecordingError('not a Playwright script: expected calls such as page.goto(…) and page.getByRole(…).click()');
  // Loaded on first use: the compiler is large and most requests never need it.
  const ts = (await import('typescript')).default;
  const file = ts.createSourceFile('recording.ts', source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const lineOf = (n: TS.Node) => file.getLineAndCharacterOfPosition(n.getStart(file)).line + 1;
  const steps: Step[] = [];
  const skipped: SkippedPart[] = [];
  let testName: string | undefined;
  let origin: string | undefined;
  let considered = 0;

  const literal = (e: TS.Expression | undefined): Lit => {
    if (!e) return undefined;
    if (ts.isStringLiteral(e) || ts.isNoSubstitutionTemplateLiteral(e)) return e.text;
    if (ts.isNumericLiteral(e)) return Number(e.text);
    if (e.kind === ts.SyntaxKind.TrueKeyword) return true;
    if (e.kind === ts.SyntaxKind.FalseKeyword) return false;
    if (e.kind === ts.SyntaxKind.NullKeyword) return null;
    if (ts.isPrefixUnaryExpression(e) && e.operator === ts.SyntaxKind.MinusToken && ts.isNumericLiteral(e.operand)) return -Number(e.operand.text);
    if (ts.isRegularExpressionLiteral(e)) {
      const m = /^\/(.*)\/([a-z]*)$/s.exec(e.text);
      if (!m) return undefined;
      try {
        return new RegExp(m[1], m[2]);
      } catch {
        // A regex that does not compile (`/(/`) is no literal: its statement is skipped as such (it answered 500; found by QA).
        return undefined;
      }
    }
    if (ts.isArrayLiteralExpression(e)) return e.elements.map((x) => literal(x));
    if (ts.isObjectLiteralExpression(e)) {
      const o: Record<string, Lit> = {};
      for (const p of e.properties) if (ts.isPropertyAssignment(p) && (ts.isIdentifier(p.name) || ts.isStringLiteral(p.name))) o[p.name.text] = literal(p.initializer);
      return o;
    }
    if (ts.isParenthesizedExpression(e) || ts.isAsExpression(e)) return literal(e.expression);
    return undefined;
  };

  const chainOf = (e: TS.Expression): Chain | undefined => {
    const calls: Call[] = [];
    const props: string[] = [];
    let cur: TS.Expression = e;
    for (;;) {
      if (ts.isAwaitExpression(cur) || ts.isParenthesizedExpression(cur)) cur = cur.expression;
      else if (ts.isCallExpression(cur)) {
        const callee = cur.expression;
        if (ts.isPropertyAccessExpression(callee)) {
          calls.unshift({ name: callee.name.text, args: cur.arguments });
          cur = callee.expression;
        } else if (ts.isIdentifier(callee) && callee.text === 'expect') {
          return { root: { expect: cur.arguments[0], soft: false }, calls, props };
        } else if (ts.isPropertyAccessExpression(callee) === false && ts.isIdentifier(callee)) return undefined;
        else return undefined;
      } else if (ts.isPropertyAccessExpression(cur)) {
        // `.not`, `expect.soft(…)`, `page.keyboard`
        if (ts.isIdentifier(cur.expression) && cur.expression.text === 'expect' && cur.name.text === 'soft') return undefined;
        calls.unshift({ name: `.${cur.name.text}`, args: ts.factory.createNodeArray() });
        cur = cur.expression;
      } else if (ts.isIdentifier(cur)) return { root: cur.text, calls, props };
      else return undefined;
    }
  };

  /** Locator-building calls → one Locator (structured when a single call, else a Playwright selector chain). */
  const locatorOf = (calls: Call[]): { locator: Locator } | { error: string } => {
    const parts: Array<{ structured?: Locator; selector: string }> = [];
    for (const c of calls) {
      const a0 = literal(c.args[0]);
      const o = (literal(c.args[1]) ?? {}) as Record<string, Lit>;
      const exact = o.exact === true;
      const text = (v: Lit) => (v instanceof RegExp ? `${v}` : `${JSON.stringify(String(v))}${exact ? 's' : 'i'}`);
      switch (c.name) {
        case 'getByRole': {
          if (typeof a0 !== 'string') return { error: 'getByRole needs a literal role' };
          const name = o.name;
          // A name that is not a literal (a variable, a regex that does not compile) would leave any element of the role: not converted (found by QA).
          if ('name' in o && (name === undefined || (typeof name === 'object' && !(name instanceof RegExp)))) return { error: 'getByRole needs a literal name (a string or a regex that compiles)' };
          if (name instanceof RegExp) parts.push({ selector: `internal:role=${a0}[name=${name}]` });
          else parts.push({ structured: { role: a0, ...(name !== undefined && { name: String(name) }), ...(exact && { exact: true }) }, selector: `internal:role=${a0}${name !== undefined ? `[name=${text(name)}]` : ''}` });
          break;
        }
        case 'getByLabel':
        case 'getByPlaceholder':
        case 'getByText': {
          if (a0 === undefined || (typeof a0 !== 'string' && !(a0 instanceof RegExp))) return { error: `${c.name} needs a literal argument` };
          const key = c.name === 'getByLabel' ? 'label' : c.name === 'getByPlaceholder' ? 'placeholder' : 'text';
          const selector = key === 'placeholder' ? `internal:attr=[placeholder=${text(a0)}]` : `internal:${key}=${text(a0)}`;
          parts.push(typeof a0 === 'string' ? { structured: { [key]: a0, ...(exact && { exact: true }) } as Locator, selector } : { selector });
          break;
        }
        case 'getByTestId':
          if (typeof a0 !== 'string') return { error: 'getByTestId needs a literal id' };
          parts.push({ structured: { test_id: a0 }, selector: `internal:testid=[data-testid=${JSON.stringify(a0)}s]` });
          break;
        case 'getByAltText':
        case 'getByTitle':
          if (typeof a0 !== 'string') return { error: `${c.name} needs a literal argument` };
          parts.push({ selector: `internal:attr=[${c.name === 'getByAltText' ? 'alt' : 'title'}=${text(a0)}]` });
          break;
        case 'locator':
          if (typeof a0 !== 'string') return { error: 'locator needs a literal selector' };
          parts.push({ selector: a0 });
          break;
        case 'first':
          parts.push({ selector: 'nth=0' });
          break;
        case 'last':
          parts.push({ selector: 'nth=-1' });
          break;
        case 'nth':
          if (typeof a0 !== 'number') return { error: 'nth needs a literal number' };
          parts.push({ selector: `nth=${a0}` });
          break;
        case 'filter': {
          const f = (a0 ?? {}) as Record<string, Lit>;
          if (f.hasText === undefined) return { error: 'only filter({ hasText }) is supported' };
          parts.push({ selector: `internal:has-text=${f.hasText instanceof RegExp ? `${f.hasText}` : `${JSON.stringify(String(f.hasText))}i`}` });
          break;
        }
        default:
          return { error: `${c.name}() is not a supported locator call` };
      }
    }
    if (parts.length === 0) return { error: 'no locator' };
    if (parts.length === 1 && parts[0].structured) return { locator: parts[0].structured };
    return { locator: parts.map((p) => p.selector).join(' >> ') };
  };

  const ACTIONS = new Set(['click', 'dblclick', 'fill', 'type', 'pressSequentially', 'press', 'check', 'uncheck', 'setChecked', 'selectOption', 'hover', 'clear', 'focus', 'setInputFiles', 'tap', 'scrollIntoViewIfNeeded']);

  const action = (loc: Locator, c: Call): Step | { error: string } => {
    const a0 = literal(c.args[0]);
    switch (c.name) {
      case 'click':
      case 'tap': {
        const o = (a0 ?? {}) as Record<string, Lit>;
        const button = o.button === 'right' || o.button === 'middle' ? o.button : undefined;
        const modifiers = Array.isArray(o.modifiers) ? (o.modifiers.filter((m) => ['Alt', 'Control', 'Meta', 'Shift'].includes(String(m))) as Array<'Alt'>) : undefined;
        return { type: 'click', selector: loc, ...(button && { button }), ...(modifiers?.length && { modifiers }) };
      }
      case 'dblclick':
        return { type: 'dblclick', selector: loc };
      case 'hover':
        return { type: 'hover', selector: loc };
      case 'fill':
        return typeof a0 === 'string' ? { type: 'fill', selector: loc, value: a0 } : { error: 'fill needs a literal value' };
      case 'clear':
        return { type: 'fill', selector: loc, value: '' };
      case 'type':
      case 'pressSequentially':
        return typeof a0 === 'string' ? { type: 'type', selector: loc, text: a0 } : { error: `${c.name} needs a literal text` };
      case 'press':
        return typeof a0 === 'string' ? { type: 'press', selector: loc, key: a0 } : { error: 'press needs a literal key' };
      case 'check':
        return { type: 'check', selector: loc };
      case 'uncheck':
        return { type: 'uncheck', selector: loc };
      case 'setChecked':
        return { type: a0 === false ? 'uncheck' : 'check', selector: loc };
      case 'selectOption': {
        if (typeof a0 === 'string') return { type: 'select', selector: loc, value: a0 };
        if (Array.isArray(a0) && a0.every((x) => typeof x === 'string')) return { type: 'select', selector: loc, values: a0 as string[] };
        if (a0 && typeof a0 === 'object' && !(a0 instanceof RegExp) && !Array.isArray(a0)) {
          const o = a0 as Record<string, Lit>;
          if (typeof o.label === 'string') return { type: 'select', selector: loc, label: o.label };
          if (typeof o.value === 'string') return { type: 'select', selector: loc, value: o.value };
        }
        return { error: 'selectOption needs a literal value, { label } or { value }' };
      }
      case 'scrollIntoViewIfNeeded':
        return { type: 'scroll', selector: loc };
      case 'focus':
        return { type: 'click', selector: loc };
      case 'setInputFiles':
        return { error: 'file uploads need the file contents; add an upload step with the files by hand' };
      default:
        return { error: `${c.name}() is not supported` };
    }
  };

  const expectation = (target: Chain | 'page', calls: Call[]): Assertion | { error: string } => {
    const not = calls[0]?.name === '.not';
    const rest = not ? calls.slice(1) : calls;
    const m = rest[rest.length - 1];
    if (!m || rest.length !== 1) return { error: 'unsupported expect(…) form' };
    const a0 = literal(m.args[0]);
    const match = (v: Lit, substring: boolean) => (v instanceof RegExp ? { matches: v.source } : typeof v === 'string' ? (substring ? { contains: v } : { equals: v }) : undefined);
    if (target === 'page') {
      if (not) return { error: 'negated page assertions are not supported' };
      if (m.name === 'toHaveURL') {
        if (a0 instanceof RegExp) return { type: 'url', matches: a0.source };
        return typeof a0 === 'string' ? { type: 'url', ...pathMatches(a0, origin) } : { error: 'toHaveURL needs a literal' };
      }
      if (m.name === 'toHaveTitle') {
        const x = match(a0, false);
        return x ? { type: 'title', ...x } : { error: 'toHaveTitle needs a literal' };
      }
      return { error: `expect(page).${m.name} is not supported` };
    }
    const loc = locatorOf(target.calls);
    if ('error' in loc) return loc;
    const selector = loc.locator;
    const simple: Record<string, Assertion['type']> = { toBeVisible: 'visible', toBeHidden: 'hidden', toBeEnabled: 'enabled', toBeDisabled: 'disabled' };
    if (simple[m.name]) {
      const opposite: Record<string, string> = { visible: 'hidden', hidden: 'visible', enabled: 'disabled', disabled: 'enabled' };
      const type = not ? opposite[simple[m.name]] : simple[m.name];
      return { type, selector } as Assertion;
    }
    if (not) return { error: `expect(…).not.${m.name} is not supported` };
    switch (m.name) {
      case 'toHaveText':
      case 'toContainText': {
        const x = match(Array.isArray(a0) ? undefined : a0, m.name === 'toContainText');
        return x ? { type: 'text', selector, ...x } : { error: `${m.name} needs a literal string or regex` };
      }
      case 'toHaveValue': {
        const x = match(a0, false);
        return x ? { type: 'value', selector, ...x } : { error: 'toHaveValue needs a literal' };
      }
      case 'toHaveCount':
        return typeof a0 === 'number' ? { type: 'count', selector, equals: a0 } : { error: 'toHaveCount needs a literal number' };
      case 'toHaveAttribute': {
        const name = literal(m.args[0]);
        const v = literal(m.args[1]);
        if (typeof name !== 'string') return { error: 'toHaveAttribute needs a literal name' };
        if (v === undefined) return { type: 'attribute', selector, attribute: name, exists: true };
        const x = match(v, false);
        return x ? { type: 'attribute', selector, attribute: name, ...x } : { error: 'toHaveAttribute needs a literal value' };
      }
      case 'toBeChecked':
        return { type: 'count', selector: `${typeof selector === 'string' ? selector : toSelectorString(selector)} >> internal:and=${JSON.stringify(':checked')}`, equals: 1 } as Assertion;
      default:
        return { error: `${m.name} is not supported` };
    }
  };

  /** Names the script gives to other pages (popups, new tabs): `page1`, `page2`, `page1Promise`. */
  const otherPages = new Set<string>();
  const skip = (node: TS.Node, reason: string) => {
    considered++;
    skipped.push({ at: lineOf(node), what: node.getText(file).slice(0, 200), reason });
  };
  let tests = 0;
  /** The title of a test declaration — `test('x', fn)`, `test.only('x', fn)`, `test.skip`, `test.fixme`, `test.fail` — else undefined (a describe, a hook, a step). */
  const testTitleOf = (e: TS.Expression): string | undefined => {
    if (!ts.isCallExpression(e)) return undefined;
    const c = e.expression;
    const isTest = (ts.isIdentifier(c) && c.text === 'test') || (ts.isPropertyAccessExpression(c) && ts.isIdentifier(c.expression) && c.expression.text === 'test' && ['only', 'skip', 'fixme', 'fail'].includes(c.name.text));
    if (!isTest) return undefined;
    const n = literal(e.arguments[0]);
    return typeof n === 'string' ? n : '';
  };
  /** `test(…)`, `test.describe(…)`, `test.step(…)`, `test.beforeEach(…)` with a function: its body holds the statements. */
  const isTestBlock = (e: TS.Expression): boolean => {
    if (!ts.isCallExpression(e)) return false;
    let callee: TS.Expression = e.expression;
    while (ts.isPropertyAccessExpression(callee)) callee = callee.expression;
    return ts.isIdentifier(callee) && callee.text === 'test' && e.arguments.some((a) => ts.isArrowFunction(a) || ts.isFunctionExpression(a));
  };
  /** Why a declaration (`const x = …`) is not converted. */
  const declarationReason = (st: TS.VariableStatement): string => {
    const text = st.getText(file);
    for (const d of st.declarationList.declarations) {
      if (ts.isIdentifier(d.name) && /\bwaitForEvent\s*\(\s*['"](popup|page)['"]|\bnewPage\s*\(|\bwaitForPopup\b/.test(d.initializer?.getText(file) ?? '')) otherPages.add(d.name.text);
      if (ts.isIdentifier(d.name) && d.initializer && ts.isAwaitExpression(d.initializer) && ts.isIdentifier(d.initializer.expression) && otherPages.has(d.initializer.expression.text)) otherPages.add(d.name.text);
    }
    if (/\bwaitForEvent\s*\(\s*['"]popup['"]|\bwaitForPopup\b/.test(text) || [...otherPages].some((p) => new RegExp(`\\bawait\\s+${p}\\b`).test(text))) return 'a popup is another page: an svc test drives one page, so the popup and what is done in it are not converted (open its URL with a goto step instead)';
    if (/\bnewPage\s*\(/.test(text)) return 'a second page (context.newPage()) is not supported: an svc test drives one page';
    if (/\bpage\s*\.\s*evaluate(Handle)?\s*\(/.test(text)) return 'page.evaluate runs code in the page: svc tests do not run scripts; assert what the page shows instead';
    if (/\bwaitForEvent\s*\(\s*['"]download['"]/.test(text)) return 'downloads are not supported';
    return 'a declaration (const/let) is not converted: steps are read from page and expect statements with literal arguments only';
  };

  const visit = (node: TS.Node): void => {
    if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'test') {
      const n = literal(node.arguments[0]);
      if (typeof n === 'string') testName ??= n;
    }
    // Every statement becomes a step, is listed in skipped, or holds the statements (a test, a describe block).
    if (ts.isImportDeclaration(node) || ts.isImportEqualsDeclaration(node) || ts.isTypeAliasDeclaration(node) || ts.isInterfaceDeclaration(node) || ts.isEmptyStatement(node)) return;
    if (ts.isVariableStatement(node)) {
      // `const { test, expect } = require('@playwright/test')` is the script's own set-up.
      if (/^\s*(const|let|var)\s*\{[^}]*\}\s*=\s*require\s*\(/.test(node.getText(file))) return;
      return skip(node, declarationReason(node));
    }
    if (ts.isExpressionStatement(node)) {
      if (statement(node)) return;
      if (isTestBlock(node.expression)) {
        // One recording is one test: a spec file's later tests were appended to the first, running on its page state (found by QA).
        const title = testTitleOf(node.expression);
        if (title !== undefined) {
          if (tests++ > 0) return skip(node, `another test (${JSON.stringify(title)}): a recording becomes one test, so only the first test of the script is converted (send this one on its own)`);
        }
        ts.forEachChild(node, visit);
        return;
      }
      const chain = chainOf(node.expression);
      const root = chain && typeof chain.root === 'string' ? chain.root : undefined;
      if (root && otherPages.has(root)) return skip(node, `${root} is another page (a popup or a new tab): an svc test drives one page`);
      if (root === 'test') return skip(node, `test.${chain!.calls[0]?.name ?? ''}(…) options are not converted`);
      if (root === 'context' || root === 'browser') return skip(node, `${root}.${chain!.calls[0]?.name ?? ''}(…) is not converted: an svc test drives one page of its own browser context`);
      return skip(node, root ? `${root}.… is not a page or expect statement: not converted` : 'not a page or expect statement: not converted');
    }
    if (ts.isFunctionDeclaration(node) || ts.isClassDeclaration(node)) return skip(node, 'a helper function is not converted: only the statements of the test are read');
    if (ts.isIfStatement(node) || ts.isIterationStatement(node, false) || ts.isTryStatement(node) || ts.isSwitchStatement(node) || ts.isReturnStatement(node) || ts.isThrowStatement(node) || ts.isLabeledStatement(node)) {
      return skip(node, 'control flow (if, loops, try, return) is not converted: its steps would run unconditionally');
    }
    ts.forEachChild(node, visit);
  };

  /** Returns true when the statement was a page/expect statement (converted or skipped). */
  const statement = (st: TS.ExpressionStatement): boolean => {
    const chain = chainOf(st.expression);
    if (!chain) return false;
    const line = lineOf(st);
    const what = st.getText(file).slice(0, 200);
    const fail = (reason: string) => {
      considered++;
      skipped.push({ at: line, what, reason });
      return true;
    };
    // A malformed statement (an empty locator, key or URL, a negative wait) is skipped naming the field, not stored broken (found by QA).
    const add = (step: Step) => {
      const invalid = invalidStepReason(step);
      if (invalid) skipped.push({ at: line, what, reason: invalid });
      else steps.push(step);
    };
    if (typeof chain.root === 'object') {
      const inner = ts.isIdentifier(chain.root.expect) && chain.root.expect.text === 'page' ? 'page' : chainOf(chain.root.expect);
      if (!inner) return fail('expect(…) of something other than page or a page locator');
      if (inner !== 'page' && inner.root !== 'page') return fail('expect(…) of something other than page or a page locator');
      const a = expectation(inner, chain.calls);
      if ('error' in a) return fail(a.error);
      considered++;
      add({ type: 'assert', assertion: a });
      return true;
    }
    if (chain.root !== 'page') return false;
    const calls = chain.calls;
    if (calls.length === 0) return false;
    const first = calls[0];
    if (first.name === 'goto') {
      const url = literal(first.args[0]);
      if (typeof url !== 'string') return fail('goto needs a literal URL');
      origin ??= originOf(url);
      considered++;
      add({ type: 'goto', url: relativeUrl(url, origin) });
      return true;
    }
    if (first.name === '.keyboard' && calls[1]) {
      const a0 = literal(calls[1].args[0]);
      considered++;
      if (calls[1].name === 'press' && typeof a0 === 'string') add({ type: 'press', key: a0 });
      else if ((calls[1].name === 'type' || calls[1].name === 'insertText') && typeof a0 === 'string') add({ type: 'type', selector: ':focus', text: a0 });
      else return fail(`keyboard.${calls[1].name} is not supported`) && true;
      return true;
    }
    if (first.name === 'waitForURL') {
      const url = literal(first.args[0]);
      if (typeof url !== 'string') return fail('waitForURL needs a literal URL');
      considered++;
      add({ type: 'wait-for', url: relativeUrl(url, origin).startsWith('/') ? `**${relativeUrl(url, origin)}` : url });
      return true;
    }
    if (first.name === 'waitForTimeout') {
      const ms = literal(first.args[0]);
      if (typeof ms !== 'number') return fail('waitForTimeout needs a literal number');
      considered++;
      add({ type: 'wait-for', ms });
      return true;
    }
    if (first.name === 'close' || first.name === 'waitForLoadState') {
      skipped.push({ at: line, what, reason: first.name === 'close' ? 'closing the page is implicit at the end of a test' : 'every step already waits for the page to load' });
      return true;
    }
    const actIndex = calls.findIndex((c) => ACTIONS.has(c.name));
    if (actIndex <= 0 || actIndex !== calls.length - 1) return fail(`page.${calls.map((c) => c.name).join('.')} is not supported`);
    const loc = locatorOf(calls.slice(0, actIndex));
    if ('error' in loc) return fail(loc.error);
    const step = action(loc.locator, calls[actIndex]);
    if ('error' in step) return fail(step.error);
    considered++;
    add(step);
    return true;
  };

  visit(file);
  if (steps.length === 0) throw new RecordingError(`no statement of the script could be converted${skipped.length ? `: ${skipped.map((s) => `line ${s.at}: ${s.reason}`).join('; ')}` : ''}`);
  const test = recordedTest(opts.name ?? testName, 'Converted from a Playwright codegen script', steps);
  const confidence = Math.round(((considered - skipped.filter((s) => !/implicit|already waits/.test(s.reason)).length) / Math.max(1, considered)) * 1000) / 1000;
  return { format: 'playwright', test, skipped, confidence };
}

function toSelectorString(l: Exclude<Locator, string>): string {
  if ('role' in l) return `internal:role=${l.role}${l.name !== undefined ? `[name=${JSON.stringify(l.name)}${l.exact ? 's' : 'i'}]` : ''}`;
  if ('test_id' in l) return `internal:testid=[data-testid=${JSON.stringify(l.test_id)}s]`;
  if ('label' in l) return `internal:label=${JSON.stringify(l.label)}${l.exact ? 's' : 'i'}`;
  if ('placeholder' in l) return `internal:attr=[placeholder=${JSON.stringify(l.placeholder)}${l.exact ? 's' : 'i'}]`;
  if ('text' in l) return `internal:text=${JSON.stringify(l.text)}${l.exact ? 's' : 'i'}`;
  if ('css' in l) return l.css;
  return `xpath=${l.xpath}`;
}

export { escapeRegex };
