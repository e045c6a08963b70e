import { z } from 'zod';
import { fileSafe } from '../file-safe.ts';
import { ParameterSets } from './parameter-sets.ts';
import { BrowserSettings } from './browser-settings.ts';
import { AxeImpact, AxeRuleId, AxeTag } from './accessibility.ts';
import { JsonPathError, parseJsonPath } from '../execution/jsonpath.ts';
import { rolesInSelector, unknownRoleMessage } from './aria-roles.ts';
import { selectorSyntaxError } from './selector-syntax.ts';

/**
 * The executable test model: locators, steps and assertions for UI, API and DB tests.
 * This is the product's own test format (docs/test-format.md; JSON Schema generated from
 * these schemas). Every field has a description because AI assistants read them.
 *
 * Strings in steps may contain {{name}} variables (see execution/variables.ts):
 * values saved by earlier steps, test parameters, and {{secrets.NAME}}.
 */

const Text = z.string().max(100_000);
const Ms = (what: string) => z.number().int().min(0).max(600_000).describe(what);

/** Base64 or base64url, whitespace allowed (wrapped lines), padding optional. */
function isBase64(text: string): boolean {
  const compact = text.replace(/\s+/g, '');
  return /^[A-Za-z0-9+/_-]*={0,2}$/.test(compact) && compact.replace(/=+$/, '').length % 4 !== 1;
}

/** How to find an element. A string is a Playwright selector (CSS, text=, xpath=, role=, data-testid= …). */
export const Locator = z
  .union([
    z.string().min(1).max(2000).describe('A selector: CSS, or a Playwright selector such as text=Sign in, xpath=//button, role=button[name="Save"]'),
    z.strictObject({ role: z.string().min(1).max(100).describe('ARIA role, e.g. button, link, textbox, heading'), name: z.string().max(2000).optional().describe('Accessible name'), exact: z.boolean().optional().describe('Match the name exactly (default false)') }),
    z.strictObject({ test_id: z.string().min(1).max(500).describe('Value of the data-testid attribute') }),
    z.strictObject({ label: z.string().min(1).max(2000).describe('Text of the associated <label>'), exact: z.boolean().optional() }),
    z.strictObject({ placeholder: z.string().min(1).max(2000).describe('Placeholder text'), exact: z.boolean().optional() }),
    z.strictObject({ text: z.string().min(1).max(2000).describe('Visible text'), exact: z.boolean().optional() }),
    z.strictObject({ css: z.string().min(1).max(2000).describe('CSS selector') }),
    z.strictObject({ xpath: z.string().min(1).max(2000).describe('XPath expression') }),
  ])
  // A role name Playwright does not know never matches anything: refused here, naming it (and the role likely meant).
  .superRefine((locator, ctx) => {
    const roles = typeof locator === 'string' ? rolesInSelector(locator) : 'role' in locator ? [locator.role] : [];
    for (const role of roles) {
      const message = unknownRoleMessage(role);
      if (message) ctx.addIssue({ code: 'custom', message, path: typeof locator === 'string' ? [] : ['role'] });
    }
    // A malformed selector fails every run inside Chromium: refused here, saying what is wrong.
    // css and xpath locators are checked as the runner hands them to Playwright (css=…, xpath=…).
    const [selector, path] = typeof locator === 'string' ? [locator, []] : 'css' in locator ? [`css=${locator.css}`, ['css']] : 'xpath' in locator ? [`xpath=${locator.xpath}`, ['xpath']] : [undefined, []];
    const problem = selector === undefined ? undefined : selectorSyntaxError(selector);
    if (problem) ctx.addIssue({ code: 'custom', message: problem, path });
  })
  .describe('Element locator: a selector string or a structured locator');
export type Locator = z.output<typeof Locator>;

/** String matching used by text-like assertions: exactly one of equals, contains, matches. */
const StringMatch = {
  equals: Text.optional().describe('Expected value, exactly'),
  contains: Text.optional().describe('Expected substring'),
  matches: z.string().max(2000).optional().describe('Regular expression (JavaScript syntax) the value must match'),
};
const oneMatcher = (v: { equals?: unknown; contains?: unknown; matches?: unknown }) =>
  [v.equals, v.contains, v.matches].filter((x) => x !== undefined).length === 1;
const ONE_MATCHER = { message: 'give exactly one of equals, contains, matches' };
const validRegex = (v: { matches?: string }) => {
  if (v.matches === undefined) return true;
  try {
    new RegExp(v.matches);
    return true;
  } catch {
    return false;
  }
};
const VALID_REGEX = { message: 'matches is not a valid regular expression', path: ['matches'] };
/** A count range no count is in (min 5, max 1) fails every run: said when the test is saved. */
const minNotAboveMax = (v: { min?: number; max?: number }) => v.min === undefined || v.max === undefined || v.min <= v.max;
const MIN_ABOVE_MAX = { message: 'max is below min: no count can pass', path: ['max'] };

const common = {
  name: z.string().max(500).optional().describe('Human-readable label shown in reports'),
  timeout_ms: Ms('Step timeout in milliseconds (default: the test timeout remaining)').optional(),
};

// ---------------------------------------------------------------- UI assertions

const uiTarget = { selector: Locator.describe('Element the assertion is about') };

/** no_console_error's quiet_ms: how long the page has had no request in flight before its console is judged. */
export const DEFAULT_CONSOLE_QUIET_MS = 500;
export const MAX_CONSOLE_QUIET_MS = 5_000;

export const UiAssertion = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('visible'), ...uiTarget, ...common }).describe('The element is visible'),
  z.strictObject({ type: z.literal('hidden'), ...uiTarget, ...common }).describe('The element is hidden or absent'),
  z.strictObject({ type: z.literal('text'), ...uiTarget, ...StringMatch, ...common }).refine(oneMatcher, ONE_MATCHER).refine(validRegex, VALID_REGEX).describe("The element's text"),
  z.strictObject({ type: z.literal('value'), ...uiTarget, ...StringMatch, ...common }).refine(oneMatcher, ONE_MATCHER).refine(validRegex, VALID_REGEX).describe("An input's value"),
  z.strictObject({ type: z.literal('url'), ...StringMatch, ...common }).refine(oneMatcher, ONE_MATCHER).refine(validRegex, VALID_REGEX).describe("The page's URL"),
  z.strictObject({ type: z.literal('title'), ...StringMatch, ...common }).refine(oneMatcher, ONE_MATCHER).refine(validRegex, VALID_REGEX).describe("The page's title"),
  z.strictObject({ type: z.literal('count'), ...uiTarget, equals: z.number().int().min(0).optional(), min: z.number().int().min(0).optional(), max: z.number().int().min(0).optional(), ...common })
    .refine((v) => v.equals !== undefined || v.min !== undefined || v.max !== undefined, { message: 'give equals, min or max' })
    .refine(minNotAboveMax, MIN_ABOVE_MAX)
    .describe('How many elements match'),
  z.strictObject({ type: z.literal('attribute'), ...uiTarget, attribute: z.string().min(1).max(200).describe('Attribute name'), ...StringMatch, exists: z.boolean().optional().describe('Only check presence (true) or absence (false)'), ...common })
    .refine((v) => (v.exists !== undefined ? [v.equals, v.contains, v.matches].every((x) => x === undefined) : oneMatcher(v)), { message: 'give exists, or exactly one of equals, contains, matches' })
    .refine(validRegex, VALID_REGEX)
    .describe("An element's attribute"),
  z.strictObject({ type: z.literal('enabled'), ...uiTarget, ...common }).describe('The element is enabled'),
  z.strictObject({ type: z.literal('disabled'), ...uiTarget, ...common }).describe('The element is disabled'),
  z.strictObject({
    type: z.literal('no_console_error'),
    contains: Text.optional().describe('Only errors whose text contains this fail the assertion'),
    matches: z.string().max(2000).optional().describe('Only errors whose text matches this regular expression (JavaScript syntax) fail the assertion'),
    quiet_ms: z.number().int().min(0).max(MAX_CONSOLE_QUIET_MS).optional().describe(`Before judging, wait until no request has been in flight for this long (default ${DEFAULT_CONSOLE_QUIET_MS}; at most ${MAX_CONSOLE_QUIET_MS}, and never past the assertion's timeout), so an error thrown shortly after the page loads or a fetch answers is seen`),
    ...common,
  })
    .refine((v) => v.contains === undefined || v.matches === undefined, { message: 'give contains or matches, not both' })
    .refine(validRegex, VALID_REGEX)
    .describe('No console error (console.error, or an uncaught exception in the page) seen since the test started matches; without contains or matches, any error fails. The browser\'s own "Failed to load resource" lines are not counted: a failed request is checked with a status assertion'),
]);
export type UiAssertion = z.output<typeof UiAssertion>;

// ---------------------------------------------------------------- visual regression

/** A baseline's name: also a file name in svc run's baselines folder. */
const BaselineName = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._ -]{0,99}$/, 'letters, digits, space, dot, dash or underscore; at most 100').describe('Baseline name, unique within the test (default visual-<n>, n the step or assertion position)');

export const VisualAssertion = z.strictObject({
  type: z.literal('visual'),
  baseline: BaselineName.optional(),
  selector: Locator.optional().describe('Element to capture (default: the viewport)'),
  full_page: z.boolean().optional().describe('Capture the whole scrollable page instead of the viewport'),
  mask: z.array(Locator).max(50).optional().describe('Elements painted over before capturing: clocks, ads, avatars, anything that changes by itself'),
  threshold: z.number().min(0).max(1).optional().describe('Per-pixel colour distance (0–1) under which pixels count as equal (default 0.2)'),
  max_diff_pixels: z.number().int().min(0).optional().describe('Differing pixels allowed (default 0)'),
  max_diff_ratio: z.number().min(0).max(1).optional().describe('Differing pixels allowed as a share of all pixels, 0–1'),
  ...common,
})
  .refine((v) => !(v.selector !== undefined && v.full_page), { message: 'full_page captures the page; give it or selector, not both', path: ['full_page'] })
  .describe('The page (or one element) looks like its accepted baseline screenshot; the first run records the baseline');
export type VisualAssertion = z.output<typeof VisualAssertion>;

/** The baseline name an unnamed visual assertion gets: its 1-based position in the test (steps, then trailing assertions). */
export const defaultBaselineName = (index: number): string => `visual-${index + 1}`;

// ---------------------------------------------------------------- accessibility

export const AccessibilityAssertion = z.strictObject({
  type: z.literal('accessibility'),
  selector: Locator.optional().describe('Check only this element and what is inside it (default: the whole page)'),
  exclude: z.array(Locator).max(50).optional().describe('Elements (and what is inside them) left out of the check, e.g. a third-party widget'),
  min_impact: AxeImpact.optional().describe('Violations at or above this impact count (default serious)'),
  tags: z.array(AxeTag).min(1).max(50).optional().describe('axe rule tags to run (default wcag2a, wcag2aa, wcag21a, wcag21aa)'),
  disable_rules: z.array(AxeRuleId).max(200).optional().describe('axe rule ids not to run, e.g. color-contrast'),
  max_violations: z.number().int().min(0).max(10_000).optional().describe('Violated rules allowed at or above min_impact (default 0)'),
  ...common,
}).describe('The page (or one element) has no accessibility violations: axe-core runs in the browser');
export type AccessibilityAssertion = z.output<typeof AccessibilityAssertion>;

/** A JSONPath is checked when the test is saved, not first when it runs; one with {{variables}} is checked once they are filled in. */
function checkJsonPath(v: { path: string }, ctx: z.RefinementCtx) {
  if (v.path.includes('{{')) return;
  try {
    parseJsonPath(v.path);
  } catch (err) {
    if (err instanceof JsonPathError) ctx.addIssue({ code: 'custom', path: ['path'], message: `not a valid JSONPath: ${err.reason}` });
    else throw err;
  }
}

// ---------------------------------------------------------------- API assertions (about the latest response)

export const ApiAssertion = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('status'), equals: z.number().int().min(100).max(599).optional(), in: z.array(z.number().int().min(100).max(599)).min(1).optional(), ...common })
    .refine((v) => (v.equals === undefined) !== (v.in === undefined), { message: 'give equals or in' })
    .describe('HTTP status of the latest response'),
  z.strictObject({ type: z.literal('header'), header: z.string().min(1).max(200).describe('Header name (case-insensitive)'), ...StringMatch, exists: z.boolean().optional(), ...common })
    .refine((v) => (v.exists !== undefined ? [v.equals, v.contains, v.matches].every((x) => x === undefined) : oneMatcher(v)), { message: 'give exists, or exactly one of equals, contains, matches' })
    .refine(validRegex, VALID_REGEX)
    .describe('A response header'),
  z.strictObject({
    type: z.literal('json'),
    path: z.string().min(1).max(1000).describe('JSONPath into the response body, e.g. $.items[0].id'),
    equals: z.unknown().optional().describe('Expected value (deep equality)'),
    contains: Text.optional().describe('Expected substring of a string value'),
    matches: z.string().max(2000).optional().describe('Regular expression a string value must match'),
    exists: z.boolean().optional().describe('Only check that the path resolves (true) or not (false)'),
    ...common,
  })
    .refine((v) => [v.equals, v.contains, v.matches, v.exists].filter((x) => x !== undefined).length === 1 || ('equals' in v && [v.contains, v.matches, v.exists].every((x) => x === undefined)), { message: 'give exactly one of equals, contains, matches, exists' })
    .refine(validRegex, VALID_REGEX)
    .superRefine(checkJsonPath)
    .describe('A value in the JSON response body'),
  z.strictObject({ type: z.literal('json_schema'), schema: z.record(z.string(), z.unknown()).describe('JSON Schema (draft 2020-12) the response body must satisfy'), ...common }).describe('The response body matches a JSON Schema'),
  z.strictObject({ type: z.literal('response_time'), max_ms: z.number().int().min(1).max(600_000).describe('Upper bound in milliseconds'), ...common }).describe('The latest response arrived within a time'),
]);
export type ApiAssertion = z.output<typeof ApiAssertion>;

// ---------------------------------------------------------------- DB assertions (about the latest query result)

export const DbAssertion = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('row_count'), equals: z.number().int().min(0).optional(), min: z.number().int().min(0).optional(), max: z.number().int().min(0).optional(), ...common })
    .refine((v) => v.equals !== undefined || v.min !== undefined || v.max !== undefined, { message: 'give equals, min or max' })
    .refine(minNotAboveMax, MIN_ABOVE_MAX)
    .describe('Number of rows returned (or affected)'),
  z.strictObject({
    type: z.literal('cell'),
    row: z.number().int().min(0).default(0).describe('Row index (default 0)'),
    column: z.string().min(1).max(200).describe('Column name'),
    equals: z.unknown().optional().describe('Expected value; numbers and numeric strings compare as numbers'),
    matches: z.string().max(2000).optional().describe('Regular expression the value (as text) must match'),
    is_null: z.boolean().optional().describe('The value is (true) or is not (false) NULL'),
    ...common,
  })
    .refine((v) => [v.matches, v.is_null].filter((x) => x !== undefined).length + ('equals' in v ? 1 : 0) === 1, { message: 'give exactly one of equals, matches, is_null' })
    .refine(validRegex, VALID_REGEX)
    .describe('A value in the query result'),
]);
export type DbAssertion = z.output<typeof DbAssertion>;

export const Assertion = z.discriminatedUnion('type', [UiAssertion, VisualAssertion, AccessibilityAssertion, ApiAssertion, DbAssertion]).describe('An assertion; UI, visual and accessibility ones inspect the page, API ones the latest response, DB ones the latest query result');
export type Assertion = z.output<typeof Assertion>;

// ---------------------------------------------------------------- network mocks

/**
 * From this step on, the page's requests matching `url` (and `method`) get this answer
 * instead of reaching the server: an error state, an empty list, a slow API, a network
 * failure. Only the browser's requests: `request` steps still reach the real server.
 */
export const MockStep = z
  .strictObject({
    type: z.literal('mock'),
    url: z.string().min(1).max(2000).describe('URL glob of the requests to answer, e.g. **/api/items* or /api/items (a path is resolved against the base URL)'),
    method: z.enum(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']).optional().describe('Only requests with this method (default: any)'),
    status: z.number().int().min(100).max(599).optional().describe('Status of the answer (default 200)'),
    json: z.unknown().optional().describe('JSON body of the answer'),
    body: z.string().max(10_000_000).optional().describe('Text body of the answer'),
    headers: z.record(z.string().min(1).max(200), z.string().max(8000)).optional().describe('Headers of the answer'),
    abort: z.enum(['failed', 'timedout', 'connectionrefused', 'internetdisconnected']).optional().describe('Fail the request with this network error instead of answering'),
    delay_ms: z.number().int().min(0).max(60_000).optional().describe('Wait this long before answering (a slow API)'),
    times: z.number().int().min(1).max(10_000).optional().describe('Answer only the first n matching requests; later ones reach the server (default: every one)'),
    ...common,
  })
  .refine((v) => !(v.json !== undefined && v.body !== undefined), { message: 'give json or body, not both', path: ['body'] })
  .refine((v) => v.abort === undefined || (v.json === undefined && v.body === undefined && v.status === undefined && v.headers === undefined), { message: 'an aborted request has no status, headers or body', path: ['abort'] })
  .describe('Answer the page\'s matching requests with a canned response or a network error, from this step on');
export type MockStep = z.output<typeof MockStep>;

// ---------------------------------------------------------------- UI steps

const target = { selector: Locator.describe('Element to act on') };

export const UiStep = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('goto'), url: z.string().min(1).max(8000).describe('Absolute URL, or a path resolved against the base URL'), ...common }).describe('Open a URL'),
  z.strictObject({ type: z.literal('click'), ...target, button: z.enum(['left', 'right', 'middle']).optional(), modifiers: z.array(z.enum(['Alt', 'Control', 'Meta', 'Shift'])).optional(), ...common }).describe('Click an element'),
  z.strictObject({ type: z.literal('dblclick'), ...target, ...common }).describe('Double-click an element'),
  z.strictObject({ type: z.literal('fill'), ...target, value: Text.describe('Text to put in the field (replaces its content)'), ...common }).describe('Fill an input'),
  z.strictObject({ type: z.literal('type'), ...target, text: Text.describe('Text to type key by key'), delay_ms: z.number().int().min(0).max(1000).optional().describe('Delay between keys'), ...common }).describe('Type into an element key by key'),
  z.strictObject({ type: z.literal('press'), selector: Locator.optional().describe('Element to focus first (default: the page)'), key: z.string().min(1).max(100).describe('Key or chord, e.g. Enter, Control+A'), ...common }).describe('Press a key'),
  z.strictObject({
    type: z.literal('select'),
    ...target,
    value: z.string().max(2000).optional().describe('Option value'),
    label: z.string().max(2000).optional().describe('Option label'),
    values: z.array(z.string().max(2000)).max(100).optional().describe('Several option values (multi-select)'),
    ...common,
  })
    .refine((v) => [v.value, v.label, v.values].filter((x) => x !== undefined).length === 1, { message: 'give exactly one of value, label, values' })
    .describe('Choose an option of a <select>'),
  z.strictObject({ type: z.literal('check'), ...target, ...common }).describe('Check a checkbox or radio'),
  z.strictObject({ type: z.literal('uncheck'), ...target, ...common }).describe('Uncheck a checkbox'),
  z.strictObject({ type: z.literal('hover'), ...target, ...common }).describe('Hover over an element'),
  z.strictObject({
    type: z.literal('upload'),
    ...target,
    files: z
      .array(
        z
          .strictObject({ name: z.string().min(1).max(255).describe('File name'), content: z.string().max(10_000_000).describe('File content: text, or base64 when encoding is base64'), encoding: z.enum(['utf8', 'base64']).default('utf8'), mime_type: z.string().max(200).optional() })
          // Node decodes any text as base64 as best it can: junk would be uploaded as junk and the step pass.
          .refine((f) => f.encoding !== 'base64' || f.content.includes('{{') || isBase64(f.content), { message: 'not valid base64 (the file says encoding: base64)', path: ['content'] }),
      )
      .min(1)
      .max(20)
      .describe('Files to set on the file input'),
    ...common,
  }).describe('Set files on a file input'),
  z.strictObject({
    type: z.literal('scroll'),
    selector: Locator.optional().describe('Element to scroll into view'),
    to: z.enum(['top', 'bottom']).optional().describe('Scroll the page to its top or bottom'),
    x: z.number().optional().describe('Horizontal offset in pixels to scroll by'),
    y: z.number().optional().describe('Vertical offset in pixels to scroll by'),
    ...common,
  })
    .refine((v) => v.selector !== undefined || v.to !== undefined || v.x !== undefined || v.y !== undefined, { message: 'give selector, to, or x/y' })
    .describe('Scroll'),
  z.strictObject({
    type: z.literal('wait-for'),
    selector: Locator.optional().describe('Element to wait for'),
    state: z.enum(['visible', 'hidden', 'attached', 'detached']).optional().describe('State to wait for (default visible)'),
    url: z.string().max(8000).optional().describe('URL (or glob such as **/done) to wait for'),
    ms: z.number().int().min(0).max(600_000).optional().describe('Fixed wait in milliseconds (prefer a condition)'),
    ...common,
  })
    .refine((v) => [v.selector, v.url, v.ms].filter((x) => x !== undefined).length === 1, { message: 'give exactly one of selector, url, ms' })
    .describe('Wait for an element, a URL or a time'),
  z.strictObject({ type: z.literal('screenshot'), label: z.string().max(200).optional().describe('Name of the screenshot'), full_page: z.boolean().optional(), ...common }).describe('Take a screenshot'),
  MockStep,
]);
export type UiStep = z.output<typeof UiStep>;

// ---------------------------------------------------------------- API and DB steps

export const HttpAuth = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('bearer'), token: z.string().min(1).max(8000) }),
  z.strictObject({ type: z.literal('basic'), username: z.string().max(1000), password: z.string().max(1000) }),
  z.strictObject({ type: z.literal('header'), name: z.string().min(1).max(200), value: z.string().max(8000) }),
]).describe('Authentication added to the request');

export const SaveSpec = z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/), z.string().min(1).max(1000)).describe('Variables to save from the result: name → JSONPath (API: into {status, headers, body}; DB: into {rows, row_count})');

export const ApiRequestStep = z.strictObject({
  type: z.literal('request'),
  method: z.enum(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']).default('GET'),
  url: z.string().min(1).max(8000).describe('Absolute URL, or a path resolved against the base URL'),
  headers: z.record(z.string(), z.string().max(8000)).optional(),
  query: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional().describe('Query parameters'),
  json: z.unknown().optional().describe('JSON body'),
  form: z.record(z.string(), z.string()).optional().describe('Form body (application/x-www-form-urlencoded)'),
  body: z.string().max(10_000_000).optional().describe('Raw body'),
  auth: HttpAuth.optional(),
  follow_redirects: z.boolean().optional().describe('Follow redirects (default true, up to 20); false: the 3xx response itself is the response, so its status, Location and Set-Cookie can be asserted'),
  save: SaveSpec.optional(),
  ...common,
}).refine((v) => [v.json, v.form, v.body].filter((x) => x !== undefined).length <= 1, { message: 'give at most one of json, form, body' }).describe('Send an HTTP request; later API assertions check its response');
export type ApiRequestStep = z.output<typeof ApiRequestStep>;

export const DbConnection = z.strictObject({
  driver: z.enum(['postgres', 'mysql']).describe('postgres (PostgreSQL) or mysql (MySQL / MariaDB)'),
  url_env: z.string().regex(/^[A-Z_][A-Z0-9_]*$/).describe("Name of the project environment variable holding the connection URL, e.g. DATABASE_URL"),
}).describe('Which database: the URL comes from the project environment, never from the test');
export type DbConnection = z.output<typeof DbConnection>;

export const DbQueryStep = z.strictObject({
  type: z.literal('sql'),
  connection: DbConnection,
  statement: z.string().min(1).max(1_000_000).describe('SQL statement or query'),
  params: z.array(z.union([z.string(), z.number(), z.boolean(), z.null()])).max(1000).optional().describe('Positional parameters ($1… for postgres, ? for mysql)'),
  save: SaveSpec.optional(),
  ...common,
}).describe('Run SQL; later DB assertions check its result');
export type DbQueryStep = z.output<typeof DbQueryStep>;

// ---------------------------------------------------------------- extraction

/** Caps of the extract step (docs/extract.md). */
export const EXTRACT_MAX_FIELDS = 100;
/** A field with `all: true` reads at most this many elements (a list past it fails the step: narrow the selector). */
export const EXTRACT_MAX_ITEMS = 1_000;
/** The extracted value as JSON, at most: it is kept in the step's result and the run report. */
export const EXTRACT_MAX_RESULT_CHARS = 32_000;
/** The page text a model reads, at most (the rest is cut, and the model is told so). */
export const EXTRACT_MAX_SNAPSHOT_CHARS = 40_000;

/** A name a later step reads as {{name}} or {{name.field}}; secrets and env are taken by {{secrets.X}} and {{env.X}}. */
const VariableName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'letters, digits and _, not starting with a digit').refine((n) => n !== 'secrets' && n !== 'env', { message: 'secrets and env are reserved: {{secrets.X}} and {{env.X}} read the project environment' });

export const ExtractField = z.strictObject({
  selector: Locator.describe('Element to read (exactly one, unless all is true)'),
  attribute: z.string().min(1).max(200).optional().describe('Read this attribute (e.g. href) instead of the visible text'),
  all: z.boolean().optional().describe('Read every matching element into a list (at least one must match)'),
}).describe('A value read from the page');
export type ExtractField = z.output<typeof ExtractField>;

/** A JSON Schema for a model's answer: an object, so fields can be named in later steps. */
export const ExtractSchema = z.record(z.string(), z.unknown()).refine((s) => s.type === 'object', { message: 'the schema must describe an object: "type": "object"' });

/** Field name → where to read it. */
export const ExtractFields = z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_-]*$/, 'letters, digits, _ and -, not starting with a digit or -').max(100), ExtractField);

/** What to extract with a model, in plain language. */
export const ExtractInstruction = z.string().trim().min(1).max(4_000);

export const ExtractStep = z.strictObject({
  type: z.literal('extract'),
  fields: ExtractFields.optional().describe('Deterministic extraction, no model: field name → where to read it'),
  instruction: ExtractInstruction.optional().describe('What to extract, in plain language: a language model reads the page\'s visible text (accessibility snapshot) and answers JSON matching schema'),
  schema: ExtractSchema.optional().describe('JSON Schema (draft 2020-12, "type": "object") the model\'s answer must satisfy; required with instruction'),
  save_as: VariableName.optional().describe('Keep the result as a variable: later steps read {{name}} (the object as JSON) or {{name.field}}'),
  ...common,
})
  .refine((v) => (v.fields !== undefined) !== (v.instruction !== undefined), { message: 'give fields (read by selectors) or instruction with schema (read by a model), not both', path: ['fields'] })
  .refine((v) => v.fields === undefined || Object.keys(v.fields).length >= 1, { message: 'give at least one field', path: ['fields'] })
  .refine((v) => v.fields === undefined || Object.keys(v.fields).length <= EXTRACT_MAX_FIELDS, { message: `at most ${EXTRACT_MAX_FIELDS} fields`, path: ['fields'] })
  .refine((v) => v.instruction === undefined || v.schema !== undefined, { message: 'an instruction needs a JSON Schema for the answer', path: ['schema'] })
  .refine((v) => v.schema === undefined || v.instruction !== undefined, { message: 'schema goes with instruction (fields need none)', path: ['schema'] })
  .describe('Read structured data from the page: fields by selectors, or an instruction answered by a model as JSON validated against a schema');
export type ExtractStep = z.output<typeof ExtractStep>;

/** An inline assertion at this point of the steps. */
export const AssertStep = z.strictObject({ type: z.literal('assert'), assertion: Assertion, ...common }).describe('Check an assertion at this point');

// ---------------------------------------------------------------- flows (shared steps)

/** A flow's name: unique per project (case-insensitive), also how `use` steps name it. */
export const FlowName = z.string().trim().regex(/^[A-Za-z0-9][A-Za-z0-9 ._-]{0,99}$/, 'letters, digits, space, dot, dash or underscore, starting with a letter or digit; at most 100').describe('Flow name, unique in the project (case-insensitive)');

/** A flow parameter's value: a string (which may name the test's {{variables}}), a number or a boolean. */
export const FlowArgument = z.union([z.string().max(100_000), z.number(), z.boolean()]);

/**
 * Runs a flow's steps here, as if they were written in place (docs/test-format.md, Flows).
 * Expanded before the test runs (flows/expand-flows.ts): the runner never sees this step.
 */
export const UseStep = z.strictObject({
  type: z.literal('use'),
  flow: FlowName.describe('Name of the flow to run (case-insensitive)'),
  with: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'letters, digits and _, not starting with a digit'), FlowArgument).optional().describe("Values for the flow's parameters: {{param}} inside the flow; a value may name the test's own {{variables}}"),
  ...common,
}).describe('Run a flow (shared steps) here');
export type UseStep = z.output<typeof UseStep>;

/** Any step. Parsing dispatches on `type`; an unknown type is a validation error naming it. */
export const Step = z.discriminatedUnion('type', [UiStep, ApiRequestStep, DbQueryStep, AssertStep, ExtractStep, UseStep]);
export type Step = z.output<typeof Step>;
/** A step the runner performs: a `use` step has been replaced by its flow's steps. */
export type RunnableStep = Exclude<Step, UseStep>;

export const stepTypes = ['goto', 'click', 'dblclick', 'fill', 'type', 'press', 'select', 'check', 'uncheck', 'hover', 'upload', 'scroll', 'wait-for', 'screenshot', 'mock', 'request', 'sql', 'assert', 'extract', 'use'] as const;
export type StepType = (typeof stepTypes)[number];

// ---------------------------------------------------------------- a test file

export const MAX_TEST_TIMEOUT_MS = 600_000; // the spec's execution timeout: 10 minutes

/** A whole test's timeout (a file's and a stored test's): 1 s to 10 minutes. */
export const TestTimeoutMs = z.number().int().min(1000).max(MAX_TEST_TIMEOUT_MS);

/** A test's fields; TestDefinition adds the checks across fields (the JSON Schema shows these). */
const TestDefinitionFields = z.strictObject({
  $schema: z.string().optional(),
  id: z.string().max(200).optional().describe('Stable id (default: derived from the file and name)'),
  name: z.string().min(1).max(255).describe('Test name'),
  description: z.string().max(10_000).optional(),
  type: z.enum(['ui', 'api', 'db']).describe('ui (browser), api (HTTP) or db (database)'),
  priority: z.enum(['critical', 'high', 'medium', 'low']).default('medium'),
  tags: z.array(z.string().min(1).max(100)).max(50).default([]),
  timeout_ms: TestTimeoutMs.default(MAX_TEST_TIMEOUT_MS).describe('Whole-test timeout, at most 10 minutes (default 10 minutes)'),
  parameters: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).default({}).describe('Values for {{name}} variables (shared by every parameter set)'),
  parameter_sets: ParameterSets.default([]),
  browser: BrowserSettings.optional(),
  quarantine: z.string().trim().min(1).max(500).optional().describe('Why the test is quarantined: it runs and is reported, but its failure does not fail the run (svc run exits 0)'),
  steps: z.array(Step).min(1).max(500),
  assertions: z.array(Assertion).max(500).default([]).describe('Checked after the steps'),
});
export const TestDefinition = TestDefinitionFields.superRefine(uniqueBaselineNames);
export type TestDefinition = z.output<typeof TestDefinition>;

/** Two visual assertions of one test with one baseline file; positions count the steps, then the assertions. */
export interface BaselineClash {
  position: number;
  name: string;
  earlierPosition: number;
  earlierName: string;
}

/**
 * Each visual assertion of a test needs a baseline of its own: two with one name would
 * compare with each other's screenshot. Names are compared as files see them (spaces and
 * other characters become _), and unnamed ones count as visual-<n>.
 */
export function baselineClashes(t: { steps: readonly Step[]; assertions: readonly Assertion[] }): BaselineClash[] {
  const seen = new Map<string, { name: string; position: number }>();
  const clashes: BaselineClash[] = [];
  const check = (a: Assertion, position: number) => {
    if (a.type !== 'visual') return;
    const name = a.baseline ?? defaultBaselineName(position);
    const key = fileSafe(name);
    const earlier = seen.get(key);
    if (earlier) clashes.push({ position, name, earlierPosition: earlier.position, earlierName: earlier.name });
    else seen.set(key, { name, position });
  };
  t.steps.forEach((s, i) => s.type === 'assert' && check(s.assertion, i));
  t.assertions.forEach((a, j) => check(a, t.steps.length + j));
  return clashes;
}

/** Why two names are one file, when they differ. */
export const sameFileNote = (name: string, earlier: string) => (earlier === name ? '' : ` (as ${JSON.stringify(earlier)}: names differing only in characters other than letters, digits, . - _ are the same file)`);

/** Each baseline clash as a validation issue at the later assertion's `baseline`. */
export function baselineClashIssues(t: { steps: readonly Step[]; assertions: readonly Assertion[] }): Array<{ path: Array<string | number>; message: string }> {
  return baselineClashes(t).map((clash) => ({
    path: clash.position < t.steps.length ? ['steps', clash.position, 'assertion', 'baseline'] : ['assertions', clash.position - t.steps.length, 'baseline'],
    message: `baseline ${JSON.stringify(clash.name)} is already used by another visual assertion of this test${sameFileNote(clash.name, clash.earlierName)}`,
  }));
}

function uniqueBaselineNames(t: { steps: Step[]; assertions: Assertion[] }, ctx: z.RefinementCtx): void {
  for (const issue of baselineClashIssues(t)) ctx.addIssue({ code: 'custom', ...issue });
}

/** A test file holds one test, or a suite: { "tests": [ … ] }. */
const testFileOf = <T extends z.ZodType>(test: T) => z.union([test, z.strictObject({ $schema: z.string().optional(), name: z.string().max(255).optional(), tests: z.array(test).min(1).max(10_000) })]);
export const TestFile = testFileOf(TestDefinition);
/** The test file's shape for its JSON Schema: a refinement across fields has no JSON Schema form (and only clutters it). */
export const TestFileShape = testFileOf(TestDefinitionFields);
export type TestFile = z.output<typeof TestFile>;
