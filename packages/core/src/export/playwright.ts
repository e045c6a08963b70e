import { DEFAULT_CONSOLE_QUIET_MS, defaultBaselineName, type MockStep, type ApiAssertion, type ApiRequestStep, type Assertion, type Locator, type Step, type TestDefinition, type UiAssertion, type UiStep, type VisualAssertion, type AccessibilityAssertion } from '../contracts/steps.ts';
import { fileSafe } from '../file-safe.ts';
import { DEFAULT_AXE_TAGS, DEFAULT_MIN_IMPACT, axeImpacts, impactRank } from '../contracts/accessibility.ts';
import { Variables, comment, key, lit } from './js.ts';
import { helperSource, type HelperName } from './playwright-helpers.ts';
import { uniqueFileSlug } from './file-names.ts';
import { statusIsChecked } from '../execution/api/server-error-check.ts';
import { caseName, parameterCases } from '../contracts/parameter-sets.ts';
import { caseBaselineName } from '../visual/case-baselines.ts';
import { hasBrowserSettings } from '../contracts/browser-settings.ts';
import type { FlowDefinition } from '../contracts/flow.ts';
import { describeOrigin, expandFlows, type FlowOrigin } from '../flows/expand-flows.ts';

/**
 * Export of svc tests as Playwright Test files, so a team can leave with its tests.
 * UI steps map to locators and web-first assertions, API steps to the `request` fixture.
 * Database steps have no Playwright equivalent: such a test is exported as skipped, with
 * its statements in a comment. What cannot be expressed is said in a comment and an
 * annotation — never silently dropped.
 */

export interface PlaywrightExportOptions {
  /** Emitted as `test.use({ baseURL })`, so relative URLs resolve as in svc. */
  baseUrl?: string;
  /** The flows the tests' `use` steps name: their steps are written inline where used. */
  flows?: readonly FlowDefinition[];
}

export interface ExportedFile {
  path: string;
  content: string;
}

const DB_SKIP = 'svc: database steps are not exported to Playwright';

/** One `.spec.ts` file for one test: one `test()`, or one per parameter set. */
export function exportPlaywrightSpec(written: TestDefinition, opts: PlaywrightExportOptions = {}): string {
  // A flow's steps are written where the test uses them (its parameters bound), each marked
  // with its origin; a use that cannot be expanded stops the export rather than vanish.
  const expanded = expandFlows(written, opts.flows ?? []);
  if (!expanded.ok) throw new Error(`the test "${written.name}" uses flows that cannot be expanded: ${expanded.issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`);
  const test = expanded.definition;
  const bodies = casesToExport(test).map((c) => ({ name: c.name, use: contextUse(test.browser, c.parameters), body: isDbTest(test) ? dbBody(test) : new SpecWriter(test, c, expanded.origins).write() }));
  const helpers = new Set(bodies.flatMap((b) => [...b.body.helpers]));
  const secrets = new Set(bodies.flatMap((b) => [...b.body.secrets]));
  const usesDevices = bodies.some((b) => b.use?.includes('...device('));
  const imports = ['test', 'expect', ...(usesDevices ? ['devices'] : []), ...(helpers.has('bodyOf') ? ['type APIResponse'] : []), ...(helpers.has('cssPaths') ? ['type Locator'] : []), ...(helpers.has('watchConsole') ? ['type Page', 'type Request'] : [])].join(', ');
  const out: string[] = [...comment(`Exported by svc from the test "${test.name}".`)];
  if (test.description) out.push(...comment(''), ...comment(test.description));
  if (bodies.length > 1) out.push(...comment(''), ...comment(`One test per parameter set (${bodies.length}), each with the set's values written in.`));
  if (secrets.size > 0) out.push(...comment(''), ...comment(`Needs the environment variables: ${[...secrets].join(', ')}`));
  out.push(`import { ${imports} } from '@playwright/test';`);
  if (bodies.some((b) => b.body.axe)) out.push(`import AxeBuilder from '@axe-core/playwright';`);
  out.push('');
  if (opts.baseUrl) out.push(`test.use({ baseURL: ${lit(opts.baseUrl)} });`, '');
  const details: string[] = [];
  if (test.tags.length > 0) details.push(`tag: [${test.tags.map((t) => lit(t.startsWith('@') ? t : `@${t}`)).join(', ')}]`);
  bodies.forEach(({ name, use, body }, i) => {
    const fixtures = body.fixtures.length > 0 ? `{ ${body.fixtures.join(', ')} }` : '';
    // Browser settings are test.use options, which apply to a describe block: one per case.
    const pad = use ? '  ' : '';
    if (i > 0) out.push('');
    if (use) out.push('test.describe(() => {', `  test.use(${use});`, '');
    out.push(`${pad}test(${lit(name)}, ${details.length > 0 ? `{ ${details.join(', ')} }, ` : ''}async (${fixtures}) => {`);
    out.push(...body.lines.map((l) => (l === '' ? '' : `${pad}  ${l}`)));
    out.push(`${pad}});`);
    if (use) out.push('});');
  });
  if (usesDevices) helpers.add('device');
  for (const h of (['jsonPath', 'bodyOf', 'escapeRegExp', 'cssPaths', 'device', 'watchConsole'] as const).filter((n) => helpers.has(n))) out.push('', helperSource(h));
  return `${out.join('\n')}\n`;
}

/** A test's browser settings as Playwright `test.use` options (the case's parameters written in); undefined for none. */
function contextUse(settings: TestDefinition['browser'], parameters: TestDefinition['parameters']): string | undefined {
  if (!hasBrowserSettings(settings)) return undefined;
  const v = new Variables(parameters);
  const s = settings;
  const options = [
    ...(s.device ? [`...device(${v.str(s.device)})`] : []),
    ...(s.viewport ? [`viewport: { width: ${s.viewport.width}, height: ${s.viewport.height} }`] : []),
    ...(s.locale ? [`locale: ${v.str(s.locale)}`] : []),
    ...(s.timezone ? [`timezoneId: ${v.str(s.timezone)}`] : []),
    ...(s.color_scheme ? [`colorScheme: ${lit(s.color_scheme)}`] : []),
    ...(s.reduced_motion ? [`reducedMotion: ${lit(s.reduced_motion)}`] : []),
    ...(s.user_agent ? [`userAgent: ${v.str(s.user_agent)}`] : []),
  ];
  return `{ ${options.join(', ')} }`;
}

/** What one exported `test()` runs: the test's name and parameters, or a parameter set's case. */
interface ExportCase {
  name: string;
  parameters: TestDefinition['parameters'];
  /** The set's 1-based position: visual baselines are named per case, as svc names them. */
  index?: number;
}

function casesToExport(test: TestDefinition): ExportCase[] {
  const sets = test.parameter_sets ?? [];
  if (!sets.length) return [{ name: test.name, parameters: test.parameters }];
  // Only the sets' names, values and positions matter here: the export has no test id.
  return parameterCases('', sets).map((c) => ({ name: caseName(test.name, c.name), parameters: { ...test.parameters, ...c.values }, index: c.index }));
}

/** A runnable project: playwright.config.ts plus tests/<name>.spec.ts per test. */
export function exportPlaywrightProject(tests: TestDefinition[], opts: PlaywrightExportOptions = {}): ExportedFile[] {
  const used = new Set<string>();
  const specs = tests.map((t) => {
    const base = uniqueFileSlug(t.name, used);
    return { path: `tests/${base}.spec.ts`, content: exportPlaywrightSpec(t, { flows: opts.flows }) };
  });
  return [{ path: 'playwright.config.ts', content: playwrightConfig(opts.baseUrl) }, ...specs];
}

// The config reads the environment at test time; see js.ts for why the name is split.
const ENV = ['process', 'env'].join('.');

function playwrightConfig(baseUrl: string | undefined): string {
  const base = baseUrl ? `${ENV}.SVC_BASE_URL || ${lit(baseUrl)}` : `${ENV}.SVC_BASE_URL || undefined`;
  return [
    ...comment('Exported by svc. Runs headless Chromium: the build svc uses when SVC_CHROMIUM_PATH is set'),
    ...comment('(extra flags as a JSON array in SVC_CHROMIUM_ARGS), else Playwright\'s own — install it once'),
    ...comment('with `npx playwright install chromium`. SVC_BASE_URL overrides the base URL.'),
    `import { defineConfig } from '@playwright/test';`,
    '',
    `const chromiumArgs: string[] = ${ENV}.SVC_CHROMIUM_ARGS ? JSON.parse(${ENV}.SVC_CHROMIUM_ARGS) : [];`,
    '',
    'export default defineConfig({',
    `  testDir: './tests',`,
    `  reporter: 'list',`,
    '  use: {',
    `    baseURL: ${base},`,
    '    headless: true,',
    `    trace: 'retain-on-failure',`,
    '    launchOptions: {',
    `      executablePath: ${ENV}.SVC_CHROMIUM_PATH || undefined,`,
    '      args: chromiumArgs,',
    '    },',
    '  },',
    `  projects: [{ name: 'chromium', use: { browserName: 'chromium' } }],`,
    '});',
    '',
  ].join('\n');
}


// ---------------------------------------------------------------- the test body

interface Body {
  lines: string[];
  fixtures: string[];
  helpers: Set<HelperName>;
  secrets: Set<string>;
  /** Imports @axe-core/playwright (an accessibility assertion was written). */
  axe?: boolean;
}

const litList = (xs: readonly string[]): string => `[${xs.map(lit).join(', ')}]`;

const isDbAssertion = (a: Assertion) => a.type === 'row_count' || a.type === 'cell';

function isDbTest(t: TestDefinition): boolean {
  return t.type === 'db' || t.steps.some((s) => s.type === 'sql' || (s.type === 'assert' && isDbAssertion(s.assertion))) || t.assertions.some(isDbAssertion);
}

function dbBody(t: TestDefinition): Body {
  const lines = comment('svc: this test queries a database, which Playwright tests do not do. Its statements:');
  for (const s of t.steps) {
    if (s.type !== 'sql') continue;
    lines.push(...comment(`[${s.connection.driver}, URL from ${s.connection.url_env}]`, ''), ...comment(s.statement).map((l) => `//   ${l.slice(3)}`.trimEnd()));
  }
  lines.push(`test.skip(true, ${lit(DB_SKIP)});`);
  return { lines, fixtures: [], helpers: new Set(), secrets: new Set() };
}

const UI_STEPS = new Set<Step['type']>(['goto', 'click', 'dblclick', 'fill', 'type', 'press', 'select', 'check', 'uncheck', 'hover', 'upload', 'scroll', 'wait-for', 'screenshot', 'mock']);
const API_ASSERTIONS = new Set<Assertion['type']>(['status', 'header', 'json', 'json_schema', 'response_time']);

class SpecWriter {
  private readonly lines: string[] = [];
  private readonly helpers = new Set<HelperName>();
  private readonly vars: Variables;
  private usesPage = false;
  private usesRequest = false;
  /** An accessibility assertion was written: the spec imports @axe-core/playwright. */
  private usesAxe = false;
  private responses = 0;
  /** Identifier of the latest response, its body variable once read, and its timing. */
  private latest?: { res: string; body?: string; elapsed?: string };
  private readonly timed: boolean;
  private readonly savedTwice: Set<string>;

  constructor(
    private readonly test: TestDefinition,
    private readonly testCase: ExportCase = { name: test.name, parameters: test.parameters },
    private readonly origins: ReadonlyArray<FlowOrigin | undefined> = [],
  ) {
    this.vars = new Variables(testCase.parameters);
    const all = [...test.steps.map((s) => (s.type === 'assert' ? s.assertion : undefined)), ...test.assertions];
    this.timed = all.some((a) => a?.type === 'response_time');
    const counts = new Map<string, number>();
    for (const s of test.steps) if (s.type === 'request') for (const name of Object.keys(s.save ?? {})) counts.set(name, (counts.get(name) ?? 0) + 1);
    this.savedTwice = new Set([...counts].filter(([, n]) => n > 1).map(([name]) => name));
  }

  write(): Body {
    const t = this.test;
    this.lines.push(`test.setTimeout(${t.timeout_ms});`);
    // no_console_error judges every error since the test started: the spec listens from its first line.
    if ([...t.steps.map((s) => (s.type === 'assert' ? s.assertion : undefined)), ...t.assertions].some((a) => a?.type === 'no_console_error')) {
      this.usesPage = true;
      this.helpers.add('watchConsole');
      this.lines.push('const pageConsole = watchConsole(page);');
    }
    t.steps.forEach((s, i) => {
      this.position = i;
      this.lines.push('');
      const origin = this.origins[i];
      this.lines.push(...comment(`${i + 1}. ${s.name ?? describe(s)}${origin ? ` (flow ${describeOrigin(origin)})` : ''}`));
      this.step(s);
    });
    if (t.assertions.length > 0) {
      this.lines.push('', ...comment('Assertions'));
      t.assertions.forEach((a, j) => {
        this.position = t.steps.length + j;
        this.assertion(a);
      });
    }
    const unresolved = [...this.vars.unresolved];
    if (unresolved.length > 0) this.lines.unshift(...comment(`svc: no value for ${unresolved.map((n) => `{{${n}}}`).join(', ')} at export time; left as written.`));
    const fixtures = [...(this.usesPage || (!this.usesRequest && t.type === 'ui') ? ['page'] : []), ...(this.usesRequest ? ['request'] : [])];
    return { lines: this.lines, fixtures, helpers: this.helpers, secrets: this.vars.secrets, axe: this.usesAxe };
  }

  /** Index of the step or trailing assertion being written (visual baselines are named by it). */
  private position = 0;

  private emit(line: string): void {
    this.lines.push(...line.split('\n'));
  }

  private step(s: Step): void {
    if (s.type === 'assert') return this.assertion(s.assertion, s.timeout_ms);
    if (s.type === 'request') return this.request(s);
    if (s.type === 'sql') throw new Error('unreachable: database tests are exported as skipped');
    if (s.type === 'extract') return this.extract(s);
    if (UI_STEPS.has(s.type)) return this.ui(s as UiStep);
  }

  // -------------------------------------------------------------- extraction

  /** Fields by selectors become the same reads in Playwright; a model's extraction has no equivalent and is left as a note. */
  private extract(s: Extract<Step, { type: 'extract' }>): void {
    if (!s.fields) {
      this.lines.push(...comment('svc: an extract step answered by a model is not exported (Playwright has no equivalent); its variable is not set.'));
      return;
    }
    const reads = Object.entries(s.fields).map(([name, f]) => {
      const l = this.loc(f.selector);
      const read = f.all
        ? f.attribute !== undefined ? `await Promise.all((await ${l}.all()).map((e) => e.getAttribute(${lit(f.attribute)})))` : `(await ${l}.allInnerTexts()).map((t) => t.trim())`
        : f.attribute !== undefined ? `await ${l}.getAttribute(${lit(f.attribute)})` : `(await ${l}.innerText()).trim()`;
      return `  ${JSON.stringify(name)}: ${read},`;
    });
    const id = s.save_as ? this.vars.declare(s.save_as) : `extracted${this.position + 1}`;
    this.emit(`const ${id} = {\n${reads.join('\n')}\n};`);
  }

  // -------------------------------------------------------------- UI steps

  private loc(l: Locator): string {
    this.usesPage = true;
    const v = this.vars;
    const exact = (e: boolean | undefined) => (e ? ', { exact: true }' : '');
    if (typeof l === 'string') return `page.locator(${v.str(l)})`;
    if ('role' in l) {
      const opts = [l.name !== undefined ? `name: ${v.str(l.name)}` : '', l.exact ? 'exact: true' : ''].filter(Boolean);
      return `page.getByRole(${lit(l.role)}${opts.length > 0 ? `, { ${opts.join(', ')} }` : ''})`;
    }
    if ('test_id' in l) return `page.getByTestId(${v.str(l.test_id)})`;
    if ('label' in l) return `page.getByLabel(${v.str(l.label)}${exact(l.exact)})`;
    if ('placeholder' in l) return `page.getByPlaceholder(${v.str(l.placeholder)}${exact(l.exact)})`;
    if ('text' in l) return `page.getByText(${v.str(l.text)}${exact(l.exact)})`;
    if ('css' in l) return `page.locator(${/^[A-Za-z][\w-]*=/.test(l.css) ? v.str(`css=${l.css}`) : v.str(l.css)})`;
    return `page.locator(${v.str(`xpath=${l.xpath}`)})`;
  }

  private ui(s: UiStep): void {
    this.usesPage = true;
    const v = this.vars;
    const timeout = s.timeout_ms !== undefined ? `timeout: ${s.timeout_ms}` : '';
    const opts = (...o: string[]) => {
      const all = [...o, timeout].filter(Boolean);
      return all.length > 0 ? `{ ${all.join(', ')} }` : '';
    };
    const call = (target: string, method: string, ...args: string[]) => this.emit(`await ${target}.${method}(${args.filter(Boolean).join(', ')});`);
    switch (s.type) {
      case 'goto':
        return call('page', 'goto', v.str(s.url), opts());
      case 'click':
        return call(this.loc(s.selector), 'click', opts(s.button && s.button !== 'left' ? `button: ${lit(s.button)}` : '', s.modifiers?.length ? `modifiers: [${s.modifiers.map(lit).join(', ')}]` : ''));
      case 'dblclick':
        return call(this.loc(s.selector), 'dblclick', opts());
      case 'fill':
        return call(this.loc(s.selector), 'fill', v.str(s.value), opts());
      case 'type':
        return call(this.loc(s.selector), 'pressSequentially', v.str(s.text), opts(s.delay_ms ? `delay: ${s.delay_ms}` : ''));
      case 'press':
        return s.selector ? call(this.loc(s.selector), 'press', v.str(s.key), opts()) : call('page.keyboard', 'press', v.str(s.key));
      case 'select': {
        const choice = s.values ? `[${s.values.map((x) => v.str(x)).join(', ')}]` : s.label !== undefined ? `{ label: ${v.str(s.label)} }` : v.str(s.value ?? '');
        return call(this.loc(s.selector), 'selectOption', choice, opts());
      }
      case 'check':
      case 'uncheck':
      case 'hover':
        return call(this.loc(s.selector), s.type, opts());
      case 'upload': {
        const files = s.files.map(
          (f) => `{ name: ${lit(f.name)}, mimeType: ${lit(f.mime_type ?? 'application/octet-stream')}, buffer: Buffer.from(${lit(f.content)}, ${lit(f.encoding === 'base64' ? 'base64' : 'utf8')}) }`,
        );
        return call(this.loc(s.selector), 'setInputFiles', `[\n  ${files.join(',\n  ')},\n]`, opts());
      }
      case 'scroll':
        if (s.selector) call(this.loc(s.selector), 'scrollIntoViewIfNeeded', opts());
        if (s.to === 'top') this.emit('await page.evaluate(() => window.scrollTo(0, 0));');
        if (s.to === 'bottom') this.emit('await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));');
        if (s.x !== undefined || s.y !== undefined) this.emit(`await page.evaluate(([x, y]) => window.scrollBy(x, y), [${num(s.x ?? 0)}, ${num(s.y ?? 0)}]);`);
        return;
      case 'wait-for':
        if (s.selector) return call(this.loc(s.selector), 'waitFor', opts(s.state ? `state: ${lit(s.state)}` : ''));
        if (s.url !== undefined) return call('page', 'waitForURL', v.str(s.url), opts());
        return call('page', 'waitForTimeout', String(s.ms ?? 0));
      case 'screenshot': {
        const shot = `await page.screenshot(${s.full_page ? '{ fullPage: true }' : ''})`;
        return this.emit(`await test.info().attach(${lit(s.label ?? 'screenshot')}, { body: ${shot}, contentType: 'image/png' });`);
      }
      case 'mock':
        return this.mock(s);
    }
  }

  /** A mock step as page.route; svc counts answers itself so another method does not use one up, and so does this. */
  private mock(s: MockStep): void {
    const v = this.vars;
    const skip = [s.method ? `route.request().method() !== ${lit(s.method)}` : '', s.times !== undefined ? `answered >= ${s.times}` : ''].filter(Boolean);
    const answer = s.abort
      ? `await route.abort(${lit(s.abort)});`
      : `await route.fulfill({ ${[`status: ${s.status ?? 200}`, ...(s.headers ? [`headers: ${v.value(s.headers)}`] : []), ...(s.json !== undefined ? [`json: ${v.value(s.json)}`] : []), ...(s.body !== undefined ? [`body: ${v.str(s.body)}`] : [])].join(', ')} });`;
    const lines = [
      ...(s.times !== undefined ? ['let answered = 0;'] : []),
      `await page.route(${v.str(s.url)}, async (route) => {`,
      ...(skip.length ? [`  if (${skip.join(' || ')}) return route.fallback();`] : []),
      ...(s.times !== undefined ? ['  answered++;'] : []),
      ...(s.delay_ms ? [`  await new Promise((resolve) => setTimeout(resolve, ${s.delay_ms}));`] : []),
      `  ${answer}`,
      '});',
    ];
    this.usesPage = true;
    this.emit(s.times !== undefined ? ['{', ...lines.map((l) => `  ${l}`), '}'].join('\n') : lines.join('\n'));
  }

  // -------------------------------------------------------------- API steps

  private request(s: ApiRequestStep): void {
    this.usesRequest = true;
    const v = this.vars;
    this.responses += 1;
    const n = this.responses;
    const res = `res${n}`;
    const headers: Array<[string, string]> = Object.entries(s.headers ?? {}).map(([k, x]) => [k, v.str(x)]);
    const hasHeader = (name: string) => headers.some(([k]) => k.toLowerCase() === name.toLowerCase());
    const operand = (e: string) => (e.includes('??') ? `(${e})` : e);
    if (s.auth?.type === 'bearer') headers.push(['Authorization', `${lit('Bearer ')} + ${operand(v.str(s.auth.token))}`]);
    if (s.auth?.type === 'basic') headers.push(['Authorization', `${lit('Basic ')} + Buffer.from(${operand(v.str(s.auth.username))} + ":" + ${operand(v.str(s.auth.password))}).toString("base64")`]);
    if (s.auth?.type === 'header') headers.push([s.auth.name, v.str(s.auth.value)]);
    const o: string[] = [];
    if (s.method !== 'GET') o.push(`method: ${lit(s.method)}`);
    if (s.query && Object.keys(s.query).length > 0) o.push(`params: {\n${Object.entries(s.query).map(([k, x]) => `  ${key(k)}: ${typeof x === 'string' ? v.str(x) : JSON.stringify(x)},`).join('\n')}\n}`);
    if (s.json !== undefined) {
      // Objects and arrays are serialised by Playwright; a bare JSON string, number or null is not.
      if (s.json !== null && typeof s.json === 'object') o.push(`data: ${v.value(s.json)}`);
      else {
        o.push(`data: JSON.stringify(${v.value(s.json)})`);
        if (!hasHeader('content-type')) headers.push(['content-type', lit('application/json')]);
      }
    }
    if (s.form) o.push(`form: ${v.value(s.form)}`);
    // A raw body is sent as written: Playwright would JSON-encode a string that does not parse under a JSON content type.
    if (s.body !== undefined) o.push(`data: Buffer.from(${v.str(s.body)})`);
    if (s.timeout_ms !== undefined) o.push(`timeout: ${s.timeout_ms}`);
    if (s.follow_redirects === false) o.push('maxRedirects: 0');
    if (headers.length > 0) o.splice(s.method !== 'GET' ? 1 : 0, 0, `headers: {\n${headers.map(([k, x]) => `  ${key(k)}: ${x},`).join('\n')}\n}`);
    const options = o.length === 0 ? '' : `, {\n${o.map((x) => `  ${x.replace(/\n/g, '\n  ')},`).join('\n')}\n}`;
    if (this.timed) this.emit(`const started${n} = Date.now();`);
    this.emit(`const ${res} = await request.fetch(${v.str(s.url)}${options});`);
    this.latest = { res };
    // As svc runs it (execution/api/server-error-check.ts): a server error no status assertion looks at fails the step.
    if (!statusIsChecked(this.test, this.position)) this.emit(`expect(${res}.status(), 'a server error, and no status assertion checks this response').toBeLessThan(500);`);
    if (this.timed) {
      this.emit(`const elapsed${n} = Date.now() - started${n};`);
      this.latest.elapsed = `elapsed${n}`;
    }
    for (const [name, path] of Object.entries(s.save ?? {})) {
      const reassign = this.vars.isDeclared(name) && this.savedTwice.has(name);
      const id = this.vars.declare(name);
      this.helpers.add('jsonPath');
      const value = `jsonPath({ status: ${res}.status(), headers: ${res}.headers(), body: ${this.body()} }, ${lit(path)})`;
      this.emit(reassign ? `${id} = ${value};` : `${this.savedTwice.has(name) ? 'let' : 'const'} ${id} = ${value};`);
    }
  }

  /** The variable holding the latest response's body, read on first use. */
  private body(): string {
    const latest = this.latest as NonNullable<SpecWriter['latest']>;
    if (!latest.body) {
      this.helpers.add('bodyOf');
      latest.body = latest.res.replace('res', 'body');
      this.emit(`const ${latest.body} = await bodyOf(${latest.res});`);
    }
    return latest.body;
  }

  // -------------------------------------------------------------- assertions

  private assertion(a: Assertion, stepTimeout?: number): void {
    if (API_ASSERTIONS.has(a.type)) return this.apiAssertion(a as ApiAssertion);
    if (a.type === 'visual') return this.visualAssertion(a, stepTimeout ?? a.timeout_ms);
    if (a.type === 'accessibility') return this.accessibilityAssertion(a);
    return this.uiAssertion(a as UiAssertion, stepTimeout ?? a.timeout_ms);
  }

  /** A string matcher: exact string, substring regex, or the given regex. */
  private matcher(m: { equals?: string; contains?: string; matches?: string }, exactMethod: string, containsMethod?: string): string {
    const v = this.vars;
    if (m.equals !== undefined) return `${exactMethod}(${v.str(m.equals)}`;
    if (m.contains !== undefined) {
      if (containsMethod) return `${containsMethod}(${v.str(m.contains)}`;
      return `${exactMethod}(${this.regex(m.contains, true)}`;
    }
    return `${exactMethod}(${this.regex(m.matches ?? '', false)}`;
  }

  private regex(source: string, escape: boolean): string {
    if (!escape) return `new RegExp(${this.vars.str(source)})`;
    const p = this.vars.escapedPattern(source);
    if (p.needsHelper) this.helpers.add('escapeRegExp');
    return `new RegExp(${p.expr})`;
  }

  private uiAssertion(a: UiAssertion, timeoutMs: number | undefined): void {
    this.usesPage = true;
    const t = timeoutMs !== undefined ? `{ timeout: ${timeoutMs} }` : '';
    const close = (args: string) => `${args}${t ? (args.endsWith('(') ? t : `, ${t}`) : ''});`;
    switch (a.type) {
      case 'visible':
      case 'hidden':
      case 'enabled':
      case 'disabled': {
        const method = { visible: 'toBeVisible', hidden: 'toBeHidden', enabled: 'toBeEnabled', disabled: 'toBeDisabled' }[a.type];
        return this.emit(`await expect(${this.loc(a.selector)}).${method}(${t});`);
      }
      case 'text':
        return this.emit(`await expect(${this.loc(a.selector)}).${close(this.matcher(a, 'toHaveText', 'toContainText'))}`);
      case 'value':
        return this.emit(`await expect(${this.loc(a.selector)}).${close(this.matcher(a, 'toHaveValue'))}`);
      case 'url':
        return this.emit(`await expect(page).${close(this.matcher(a, 'toHaveURL'))}`);
      case 'title':
        return this.emit(`await expect(page).${close(this.matcher(a, 'toHaveTitle'))}`);
      case 'count': {
        const loc = this.loc(a.selector);
        if (a.equals !== undefined) this.emit(`await expect(${loc}).toHaveCount(${a.equals}${t ? `, ${t}` : ''});`);
        if (a.min !== undefined) this.emit(`expect(await ${loc}.count()).toBeGreaterThanOrEqual(${a.min});`);
        if (a.max !== undefined) this.emit(`expect(await ${loc}.count()).toBeLessThanOrEqual(${a.max});`);
        return;
      }
      case 'attribute': {
        const loc = this.loc(a.selector);
        const name = lit(a.attribute);
        if (a.exists !== undefined) return this.emit(`await expect(${loc}).${a.exists ? '' : 'not.'}toHaveAttribute(${name}${t ? `, ${t}` : ''});`);
        const m = this.matcher(a, 'toHaveAttribute').replace('toHaveAttribute(', `toHaveAttribute(${name}, `);
        return this.emit(`await expect(${loc}).${close(m)}`);
      }
      case 'no_console_error': {
        // svc waits for the page to settle within the assertion's timeout (its default: 5 s, as expect's).
        this.emit(`await pageConsole.settle(${a.quiet_ms ?? DEFAULT_CONSOLE_QUIET_MS}, ${timeoutMs ?? 5_000});`);
        const filter = a.contains !== undefined ? `.filter((e) => e.includes(${this.vars.str(a.contains)}))` : a.matches !== undefined ? `.filter((e) => ${this.regex(a.matches, false)}.test(e))` : '';
        const which = a.contains !== undefined ? ` containing ${JSON.stringify(a.contains)}` : a.matches !== undefined ? ` matching /${a.matches}/` : '';
        return this.emit(`expect(pageConsole.errors${filter}, ${lit(`console errors and uncaught exceptions${which}`)}).toEqual([]);`);
      }
    }
  }

  /**
   * Playwright's own screenshot assertion (it already disables animations and hides the
   * caret). Its snapshots live beside the spec, so the first `npx playwright test
   * --update-snapshots` records them, as svc's first run records its baselines.
   */
  private visualAssertion(a: VisualAssertion, timeoutMs: number | undefined): void {
    const target = a.selector !== undefined ? this.loc(a.selector) : ((this.usesPage = true), 'page');
    const opts = [
      a.full_page ? 'fullPage: true' : '',
      a.mask?.length ? `mask: [${a.mask.map((m) => this.loc(m)).join(', ')}]` : '',
      a.threshold !== undefined ? `threshold: ${a.threshold}` : '',
      a.max_diff_pixels !== undefined ? `maxDiffPixels: ${a.max_diff_pixels}` : '',
      a.max_diff_ratio !== undefined ? `maxDiffPixelRatio: ${a.max_diff_ratio}` : '',
      timeoutMs !== undefined ? `timeout: ${timeoutMs}` : '',
    ].filter(Boolean);
    const own = a.baseline ?? defaultBaselineName(this.position);
    const name = `${fileSafe(this.testCase.index === undefined ? own : caseBaselineName(own, this.testCase.index))}.png`;
    this.emit(`await expect(${target}).toHaveScreenshot(${lit(name)}${opts.length ? `, { ${opts.join(', ')} }` : ''});`);
  }

  /**
   * axe-core through @axe-core/playwright, with the same tags, scope, exclusions and
   * disabled rules, and an expect on the violations at or above min_impact. AxeBuilder
   * takes CSS selectors only: a locator that is not one is turned into CSS paths of the
   * elements it finds at that moment (the cssPaths helper).
   */
  private accessibilityAssertion(a: AccessibilityAssertion): void {
    this.usesPage = true;
    this.usesAxe = true;
    const body = [`const axe = new AxeBuilder({ page }).withTags(${litList(a.tags ?? DEFAULT_AXE_TAGS)});`];
    if (a.selector !== undefined) {
      const css = this.cssOf(a.selector);
      if (css !== undefined) body.push(`axe.include(${css});`);
      else {
        const loc = this.loc(a.selector);
        body.push(`await expect(${loc}).toHaveCount(1);`, `axe.include((await cssPaths(${loc}))[0]);`);
      }
    }
    for (const l of a.exclude ?? []) {
      const css = this.cssOf(l);
      body.push(css !== undefined ? `axe.exclude(${css});` : `for (const css of await cssPaths(${this.loc(l)})) axe.exclude(css);`);
    }
    if (a.disable_rules?.length) body.push(`axe.disableRules(${litList(a.disable_rules)});`);
    const counted = axeImpacts.filter((i) => impactRank(i) >= impactRank(a.min_impact ?? DEFAULT_MIN_IMPACT));
    body.push(
      `const violations = (await axe.analyze()).violations.filter((v) => ${litList(counted)}.includes(v.impact ?? 'minor'));`,
      a.max_violations
        ? `expect(violations.length, violations.map((v) => \`\${v.id} (\${v.impact}): \${v.help}\`).join('\\n')).toBeLessThanOrEqual(${a.max_violations});`
        : `expect(violations.map((v) => \`\${v.id} (\${v.impact}): \${v.help}\`)).toEqual([]);`,
    );
    if (body.some((l) => l.includes('cssPaths('))) this.helpers.add('cssPaths');
    this.emit(['{', ...body.map((l) => `  ${l}`), '}'].join('\n'));
  }

  /** The locator as a CSS selector literal, when it is one (a string without a Playwright engine prefix, or { css }). */
  private cssOf(l: Locator): string | undefined {
    if (typeof l === 'object' && 'css' in l) return this.vars.str(l.css);
    if (typeof l !== 'string' || /^[a-z][\w-]*=/i.test(l) || l.includes('>>') || l.startsWith('/') || l.startsWith('(')) return undefined;
    return this.vars.str(l);
  }

  private apiAssertion(a: ApiAssertion): void {
    if (!this.latest) return this.emit(`throw new Error(${lit(`svc: the ${a.type} assertion comes before any request`)});`);
    const res = this.latest.res;
    const v = this.vars;
    switch (a.type) {
      case 'status':
        if (a.in) return this.emit(`expect([${a.in.join(', ')}]).toContain(${res}.status());`);
        return this.emit(`expect(${res}.status()).toBe(${a.equals});`);
      case 'header': {
        const h = `${res}.headers()[${lit(a.header.toLowerCase())}]`;
        if (a.exists !== undefined) return this.emit(`expect(${h}).${a.exists ? 'toBeDefined' : 'toBeUndefined'}();`);
        if (a.equals !== undefined) return this.emit(`expect(${h}).toBe(${v.str(a.equals)});`);
        if (a.contains !== undefined) return this.emit(`expect(${h}).toContain(${v.str(a.contains)});`);
        return this.emit(`expect(${h}).toMatch(${this.regex(a.matches ?? '', false)});`);
      }
      case 'json': {
        this.helpers.add('jsonPath');
        const value = `jsonPath(${this.body()}, ${lit(a.path)})`;
        if (a.exists !== undefined) return this.emit(`expect(${value}).${a.exists ? 'toBeDefined' : 'toBeUndefined'}();`);
        // svc's contains is a substring of a string value: toContain would also pass on an array holding it.
        if (a.contains !== undefined) {
          this.emit(`expect(typeof ${value}).toBe('string');`);
          return this.emit(`expect(${value}).toContain(${v.str(a.contains)});`);
        }
        if (a.matches !== undefined) return this.emit(`expect(${value}).toMatch(${this.regex(a.matches, false)});`);
        return this.emit(`expect(${value}).toEqual(${v.value(a.equals)});`);
      }
      case 'response_time':
        return this.emit(`expect(${this.latest.elapsed ?? '0'}).toBeLessThanOrEqual(${a.max_ms});`);
      case 'json_schema':
        this.lines.push(...comment('svc: JSON Schema assertions are not exported (add a validator such as ajv). The schema:'));
        this.lines.push(...comment(JSON.stringify(a.schema)));
        return this.emit(`test.info().annotations.push({ type: 'svc', description: ${lit('json_schema assertion not exported')} });`);
    }
  }
}

function num(n: number): string {
  return Number.isFinite(n) ? String(n) : '0';
}

/** A short description of a step for the comment above it. */
function describe(s: Step): string {
  switch (s.type) {
    case 'goto':
      return `goto ${s.url}`;
    case 'request':
      return `${s.method} ${s.url}`;
    case 'sql':
      return `sql ${s.statement.slice(0, 80)}`;
    case 'assert':
      return `assert ${s.assertion.type}${'selector' in s.assertion && s.assertion.selector !== undefined ? ` ${locatorText(s.assertion.selector)}` : ''}`;
    case 'press':
      return `press ${s.key}`;
    default:
      return 'selector' in s && s.selector !== undefined ? `${s.type} ${locatorText(s.selector)}` : s.type;
  }
}

function locatorText(l: Locator): string {
  if (typeof l === 'string') return l;
  return Object.entries(l)
    .map(([k, v]) => `${k}=${String(v)}`)
    .join(' ');
}
