import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { TestDefinition } from '@svc/core/contracts/steps';
import { exportPlaywrightProject, exportPlaywrightSpec } from '@svc/core/export/playwright';
import { syntaxErrors, typeErrors } from './typecheck.ts';

/** Parses a test the way svc does, so defaults (priority, tags, timeout…) are filled in. */
const def = (t: Record<string, unknown>) => TestDefinition.parse({ name: 'A test', type: 'ui', ...t });
const ui = (...steps: unknown[]) => def({ steps });

/** Every spec generated in this file, type-checked together at the end against Playwright's types. */
const generated = new Map<string, string>();
function spec(name: string, t: TestDefinition, opts?: { baseUrl?: string }): string {
  const code = exportPlaywrightSpec(t, opts);
  expect(syntaxErrors(code), code).toEqual([]);
  generated.set(`${name}.spec.ts`, code);
  return code;
}

/** The body lines of the test, trimmed, without comments and blank lines. */
function lines(code: string): string[] {
  return code
    .slice(code.indexOf('async ('), code.indexOf('\n});'))
    .split('\n')
    .slice(1)
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('//'));
}

describe('Playwright export: UI steps', () => {
  it('writes the file header, imports, base URL, title, tags and timeout', () => {
    const code = spec('header', def({ name: 'Checkout works', tags: ['smoke', '@critical'], timeout_ms: 30_000, description: 'Buys a lamp.\nThen pays.', steps: [{ type: 'goto', url: '/' }] }), { baseUrl: 'http://127.0.0.1:4000' });
    expect(code).toContain(`import { test, expect } from '@playwright/test';`);
    expect(code).toContain('// Buys a lamp.\n// Then pays.');
    expect(code).toContain('test.use({ baseURL: "http://127.0.0.1:4000" });');
    expect(code).toContain('test("Checkout works", { tag: ["@smoke", "@critical"] }, async ({ page }) => {');
    expect(lines(code)).toEqual(['test.setTimeout(30000);', 'await page.goto("/");']);
  });

  it('maps every action', () => {
    const code = spec(
      'actions',
      ui(
        { type: 'goto', url: 'https://example.test/login', timeout_ms: 10_000 },
        { type: 'click', selector: '#buy' },
        { type: 'click', selector: '#menu', button: 'right', modifiers: ['Shift', 'Control'], timeout_ms: 2000 },
        { type: 'dblclick', selector: '.row' },
        { type: 'fill', selector: { label: 'Email' }, value: 'ann@example.test' },
        { type: 'type', selector: { placeholder: 'Search' }, text: 'lamp', delay_ms: 50 },
        { type: 'press', selector: '#q', key: 'Enter' },
        { type: 'press', key: 'Control+A' },
        { type: 'select', selector: '#size', value: 'm' },
        { type: 'select', selector: '#size', label: 'Large' },
        { type: 'select', selector: '#tags', values: ['a', 'b'] },
        { type: 'check', selector: '#terms' },
        { type: 'uncheck', selector: '#news' },
        { type: 'hover', selector: '#help' },
        { type: 'upload', selector: '#file', files: [{ name: 'a.txt', content: 'hello' }, { name: 'b.png', content: 'iVBORw0KGgo=', encoding: 'base64', mime_type: 'image/png' }] },
        { type: 'scroll', selector: '#footer' },
        { type: 'scroll', to: 'top' },
        { type: 'scroll', to: 'bottom' },
        { type: 'scroll', y: 500 },
        { type: 'wait-for', selector: '#spinner', state: 'hidden' },
        { type: 'wait-for', selector: '#done' },
        { type: 'wait-for', url: '**/done' },
        { type: 'wait-for', ms: 250 },
        { type: 'screenshot', label: 'after wait', full_page: true },
        { type: 'screenshot' },
      ),
    );
    expect(lines(code)).toEqual([
      'test.setTimeout(600000);',
      'await page.goto("https://example.test/login", { timeout: 10000 });',
      'await page.locator("#buy").click();',
      'await page.locator("#menu").click({ button: "right", modifiers: ["Shift", "Control"], timeout: 2000 });',
      'await page.locator(".row").dblclick();',
      'await page.getByLabel("Email").fill("ann@example.test");',
      'await page.getByPlaceholder("Search").pressSequentially("lamp", { delay: 50 });',
      'await page.locator("#q").press("Enter");',
      'await page.keyboard.press("Control+A");',
      'await page.locator("#size").selectOption("m");',
      'await page.locator("#size").selectOption({ label: "Large" });',
      'await page.locator("#tags").selectOption(["a", "b"]);',
      'await page.locator("#terms").check();',
      'await page.locator("#news").uncheck();',
      'await page.locator("#help").hover();',
      'await page.locator("#file").setInputFiles([',
      '{ name: "a.txt", mimeType: "application/octet-stream", buffer: Buffer.from("hello", "utf8") },',
      '{ name: "b.png", mimeType: "image/png", buffer: Buffer.from("iVBORw0KGgo=", "base64") },',
      ']);',
      'await page.locator("#footer").scrollIntoViewIfNeeded();',
      'await page.evaluate(() => window.scrollTo(0, 0));',
      'await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));',
      'await page.evaluate(([x, y]) => window.scrollBy(x, y), [0, 500]);',
      'await page.locator("#spinner").waitFor({ state: "hidden" });',
      'await page.locator("#done").waitFor();',
      'await page.waitForURL("**/done");',
      'await page.waitForTimeout(250);',
      `await test.info().attach("after wait", { body: await page.screenshot({ fullPage: true }), contentType: 'image/png' });`,
      `await test.info().attach("screenshot", { body: await page.screenshot(), contentType: 'image/png' });`,
    ]);
  });

  it('maps every kind of locator', () => {
    const code = spec(
      'locators',
      ui(
        { type: 'click', selector: 'text=Sign in' },
        { type: 'click', selector: { role: 'button', name: 'Save', exact: true } },
        { type: 'click', selector: { role: 'link', name: 'Docs' } },
        { type: 'click', selector: { role: 'navigation' } },
        { type: 'click', selector: { test_id: 'buy-now' } },
        { type: 'click', selector: { label: 'Remember me', exact: true } },
        { type: 'click', selector: { placeholder: 'you@example.com' } },
        { type: 'click', selector: { text: 'Welcome', exact: true } },
        { type: 'click', selector: { css: 'ul > li:nth-child(2)' } },
        { type: 'click', selector: { css: 'a[href="x=y"]' } },
        { type: 'click', selector: { xpath: '//button[@id="go"]' } },
      ),
    );
    expect(lines(code).slice(1)).toEqual([
      'await page.locator("text=Sign in").click();',
      'await page.getByRole("button", { name: "Save", exact: true }).click();',
      'await page.getByRole("link", { name: "Docs" }).click();',
      'await page.getByRole("navigation").click();',
      'await page.getByTestId("buy-now").click();',
      'await page.getByLabel("Remember me", { exact: true }).click();',
      'await page.getByPlaceholder("you@example.com").click();',
      'await page.getByText("Welcome", { exact: true }).click();',
      'await page.locator("ul > li:nth-child(2)").click();',
      'await page.locator("a[href=\\"x=y\\"]").click();',
      'await page.locator("xpath=//button[@id=\\"go\\"]").click();',
    ]);
    // A CSS selector that looks like another engine's prefix is pinned to CSS. Such a selector
    // is not valid CSS and is refused when a test is saved now; a test stored before that
    // check still exports it as the CSS it says it is.
    const stored = ui({ type: 'click', selector: { css: 'a' } });
    (stored.steps[0] as { selector: { css: string } }).selector.css = 'text=x';
    const pinned = spec('css-pinned', stored);
    expect(pinned).toContain('page.locator("css=text=x")');
  });
});

describe('Playwright export: UI assertions', () => {
  it('maps every assertion to a web-first expect', () => {
    const a = (assertion: Record<string, unknown>) => ({ type: 'assert', assertion });
    const code = spec(
      'ui-assertions',
      ui(
        a({ type: 'visible', selector: '#ok' }),
        a({ type: 'hidden', selector: '#spinner', timeout_ms: 15_000 }),
        a({ type: 'text', selector: 'h1', equals: 'Welcome' }),
        a({ type: 'text', selector: 'h1', contains: 'Wel' }),
        a({ type: 'text', selector: 'h1', matches: '^Wel+come$' }),
        a({ type: 'value', selector: '#q', equals: 'lamp' }),
        a({ type: 'value', selector: '#q', contains: 'a.m' }),
        a({ type: 'value', selector: '#q', matches: 'l.mp' }),
        a({ type: 'url', equals: 'https://example.test/done' }),
        a({ type: 'url', contains: '/done?x=1' }),
        a({ type: 'url', matches: '/done$' }),
        a({ type: 'title', equals: 'Done' }),
        a({ type: 'title', contains: 'Do' }),
        a({ type: 'title', matches: '^D' }),
        a({ type: 'count', selector: '.item', equals: 3 }),
        a({ type: 'count', selector: '.item', min: 1, max: 5 }),
        a({ type: 'attribute', selector: 'a', attribute: 'href', exists: true }),
        a({ type: 'attribute', selector: 'a', attribute: 'target', exists: false }),
        a({ type: 'attribute', selector: 'a', attribute: 'href', equals: '/x' }),
        a({ type: 'attribute', selector: 'a', attribute: 'class', contains: 'active' }),
        a({ type: 'attribute', selector: 'a', attribute: 'href', matches: '^/x', timeout_ms: 1000 }),
        a({ type: 'enabled', selector: '#buy' }),
        a({ type: 'disabled', selector: '#pay' }),
      ),
    );
    expect(lines(code).slice(1)).toEqual([
      'await expect(page.locator("#ok")).toBeVisible();',
      'await expect(page.locator("#spinner")).toBeHidden({ timeout: 15000 });',
      'await expect(page.locator("h1")).toHaveText("Welcome");',
      'await expect(page.locator("h1")).toContainText("Wel");',
      'await expect(page.locator("h1")).toHaveText(new RegExp("^Wel+come$"));',
      'await expect(page.locator("#q")).toHaveValue("lamp");',
      'await expect(page.locator("#q")).toHaveValue(new RegExp("a\\\\.m"));',
      'await expect(page.locator("#q")).toHaveValue(new RegExp("l.mp"));',
      'await expect(page).toHaveURL("https://example.test/done");',
      'await expect(page).toHaveURL(new RegExp("\\\\/done\\\\?x=1"));',
      'await expect(page).toHaveURL(new RegExp("/done$"));',
      'await expect(page).toHaveTitle("Done");',
      'await expect(page).toHaveTitle(new RegExp("Do"));',
      'await expect(page).toHaveTitle(new RegExp("^D"));',
      'await expect(page.locator(".item")).toHaveCount(3);',
      'expect(await page.locator(".item").count()).toBeGreaterThanOrEqual(1);',
      'expect(await page.locator(".item").count()).toBeLessThanOrEqual(5);',
      'await expect(page.locator("a")).toHaveAttribute("href");',
      'await expect(page.locator("a")).not.toHaveAttribute("target");',
      'await expect(page.locator("a")).toHaveAttribute("href", "/x");',
      'await expect(page.locator("a")).toHaveAttribute("class", new RegExp("active"));',
      'await expect(page.locator("a")).toHaveAttribute("href", new RegExp("^/x"), { timeout: 1000 });',
      'await expect(page.locator("#buy")).toBeEnabled();',
      'await expect(page.locator("#pay")).toBeDisabled();',
    ]);
  });

  it('no_console_error: the spec collects console errors and uncaught exceptions from its first line, settles, and expects none matching', () => {
    const code = spec(
      'no-console-error',
      def({
        steps: [{ type: 'goto', url: '/' }, { type: 'assert', assertion: { type: 'no_console_error', contains: 'Boom {{who}}' }, timeout_ms: 3000 }],
        parameters: { who: 'ann' },
        assertions: [{ type: 'no_console_error' }, { type: 'no_console_error', matches: '^Uncaught (Type)?Error', quiet_ms: 1000 }],
      }),
    );
    expect(code).toContain(`import { test, expect, type Page, type Request } from '@playwright/test';`);
    expect(code).toContain('function watchConsole(page: Page) {');
    expect(lines(code)).toEqual([
      'test.setTimeout(600000);',
      'const pageConsole = watchConsole(page);',
      'await page.goto("/");',
      'await pageConsole.settle(500, 3000);',
      'expect(pageConsole.errors.filter((e) => e.includes("Boom ann")), "console errors and uncaught exceptions containing \\"Boom {{who}}\\"").toEqual([]);',
      'await pageConsole.settle(500, 5000);',
      'expect(pageConsole.errors, "console errors and uncaught exceptions").toEqual([]);',
      'await pageConsole.settle(1000, 5000);',
      'expect(pageConsole.errors.filter((e) => new RegExp("^Uncaught (Type)?Error").test(e)), "console errors and uncaught exceptions matching /^Uncaught (Type)?Error/").toEqual([]);',
    ]);
    // A saved variable of the same name does not clash with the spec's own.
    const saved = spec('no-console-error-names', def({ steps: [{ type: 'goto', url: '/' }, { type: 'request', url: '/api/x', save: { pageConsole: '$.body.id', Request: '$.body.r' } }], assertions: [{ type: 'no_console_error' }] }));
    expect(saved).toContain('const pageConsole_ = jsonPath(');
    expect(saved).toContain('const Request_ = jsonPath(');
  });

  it('the escaped substring patterns match the literal text, and only it', () => {
    const code = spec('escape-contains', ui({ type: 'assert', assertion: { type: 'url', contains: 'a.b?c=(1)*[2]/$^' } }));
    const source = JSON.parse(/new RegExp\(("(?:[^"\\]|\\.)*")\)/.exec(code)?.[1] ?? '""');
    expect(new RegExp(source).test('https://x.test/a.b?c=(1)*[2]/$^')).toBe(true);
    expect(new RegExp(source).test('https://x.test/aXb?c=(1)*[2]/$^')).toBe(false);
  });

  it('test-level assertions follow the steps', () => {
    const code = spec('test-assertions', def({ steps: [{ type: 'goto', url: '/' }], assertions: [{ type: 'title', equals: 'Home' }] }));
    expect(code).toContain('  // Assertions\n  await expect(page).toHaveTitle("Home");');
  });
});

describe('Playwright export: visual assertions', () => {
  it('become toHaveScreenshot with the baseline name, element, masks and tolerances', () => {
    const code = spec('visual', def({
      steps: [
        { type: 'goto', url: '/visual' },
        { type: 'assert', assertion: { type: 'visual', baseline: 'checkout page', mask: ['#clock', { test_id: 'avatar' }], max_diff_ratio: 0.01, threshold: 0.3 } },
        { type: 'assert', assertion: { type: 'visual', selector: { role: 'heading', name: 'Visual check' }, max_diff_pixels: 20, timeout_ms: 4000 } },
      ],
      assertions: [{ type: 'visual', full_page: true }],
    }));
    expect(lines(code)).toEqual([
      'test.setTimeout(600000);',
      'await page.goto("/visual");',
      'await expect(page).toHaveScreenshot("checkout_page.png", { mask: [page.locator("#clock"), page.getByTestId("avatar")], threshold: 0.3, maxDiffPixelRatio: 0.01 });',
      'await expect(page.getByRole("heading", { name: "Visual check" })).toHaveScreenshot("visual-3.png", { maxDiffPixels: 20, timeout: 4000 });',
      'await expect(page).toHaveScreenshot("visual-4.png", { fullPage: true });',
    ]);
  });
});

describe('Playwright export: parameter sets', () => {
  it('write one test per set with its values, and name each case\'s baselines as svc does', () => {
    const code = spec('parameter-sets', def({
      name: 'search',
      parameters: { base: '/search' },
      parameter_sets: [{ name: 'lamps', values: { q: 'lamp', n: 3 } }, { values: { q: 'sofa', n: 0 } }],
      steps: [{ type: 'goto', url: '{{base}}?q={{q}}' }],
      assertions: [{ type: 'text', selector: '#count', equals: '{{n}} results' }, { type: 'visual', baseline: 'results' }],
    }));
    expect(code.match(/^test\(/gm)).toHaveLength(2);
    expect(code).toContain('test("search [lamps]", async ({ page }) => {');
    expect(code).toContain('test("search [q=sofa, n=0]", async ({ page }) => {');
    expect(code).toContain('await page.goto("/search?q=lamp");');
    expect(code).toContain('await page.goto("/search?q=sofa");');
    expect(code).toContain('toHaveText("0 results")');
    expect(code).toContain('toHaveScreenshot("results_set_1.png")');
    expect(code).toContain('toHaveScreenshot("results_set_2.png")');
  });
});

describe('Playwright export: mock steps', () => {
  it('become page.route handlers, counting their answers and skipping other methods', () => {
    const code = spec('mocks', ui(
      { type: 'mock', url: '**/api/items', json: { items: [] } },
      { type: 'mock', url: '/api/orders', method: 'POST', status: 503, headers: { 'retry-after': '5' }, body: 'down', times: 2, delay_ms: 100 },
      { type: 'mock', url: '**/track', abort: 'failed' },
    ));
    expect(lines(code)).toEqual([
      'test.setTimeout(600000);',
      'await page.route("**/api/items", async (route) => {',
      'await route.fulfill({ status: 200, json: {',
      'items: [],',
      '} });',
      '});',
      '{',
      'let answered = 0;',
      'await page.route("/api/orders", async (route) => {',
      'if (route.request().method() !== "POST" || answered >= 2) return route.fallback();',
      'answered++;',
      'await new Promise((resolve) => setTimeout(resolve, 100));',
      'await route.fulfill({ status: 503, headers: {',
      '"retry-after": "5",',
      '}, body: "down" });',
      '});',
      '}',
      'await page.route("**/track", async (route) => {',
      'await route.abort("failed");',
      '});',
    ]);
  });
});

describe('Playwright export: browser settings', () => {
  it('become test.use options in a describe block per case, the device without its engine', () => {
    const code = spec('browser-settings', def({
      name: 'responsive',
      browser: { device: '{{device}}', viewport: { width: 400, height: 800 }, locale: 'de-CH', timezone: 'Europe/Berlin', color_scheme: 'dark', reduced_motion: 'reduce', user_agent: 'svc-bot' },
      parameter_sets: [{ values: { device: 'iPhone 13' } }, { values: { device: 'Pixel 7' } }],
      steps: [{ type: 'goto', url: '/' }],
    }));
    expect(code).toContain(`import { test, expect, devices } from '@playwright/test';`);
    expect(code).toContain('test.describe(() => {\n  test.use({ ...device("iPhone 13"), viewport: { width: 400, height: 800 }, locale: "de-CH", timezoneId: "Europe/Berlin", colorScheme: "dark", reducedMotion: "reduce", userAgent: "svc-bot" });\n\n  test("responsive [device=iPhone 13]", async ({ page }) => {');
    expect(code).toContain('test.use({ ...device("Pixel 7"),');
    expect(code).toContain('function device(name: string) {');
    // A test without settings keeps its plain shape.
    expect(spec('no-browser', ui({ type: 'goto', url: '/' }))).not.toMatch(/test\.describe|devices/);
  });
});

describe('Playwright export: accessibility assertions', () => {
  it('become an @axe-core/playwright check with the same tags, scope, exclusions, rules and threshold', () => {
    const code = spec('accessibility', def({
      steps: [
        { type: 'goto', url: '/a11y' },
        { type: 'assert', assertion: { type: 'accessibility' } },
        { type: 'assert', assertion: { type: 'accessibility', selector: '#newsletter-form', exclude: [{ css: '.ad' }, { role: 'img' }], min_impact: 'critical', tags: ['wcag2a'], disable_rules: ['color-contrast'], max_violations: 2 } },
      ],
      assertions: [{ type: 'accessibility', selector: { role: 'form', name: 'Newsletter' } }],
    }));
    expect(code).toContain(`import { test, expect, type Locator } from '@playwright/test';\nimport AxeBuilder from '@axe-core/playwright';\n`);
    expect(lines(code)).toEqual([
      'test.setTimeout(600000);',
      'await page.goto("/a11y");',
      '{',
      'const axe = new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]);',
      `const violations = (await axe.analyze()).violations.filter((v) => ["serious", "critical"].includes(v.impact ?? 'minor'));`,
      'expect(violations.map((v) => `${v.id} (${v.impact}): ${v.help}`)).toEqual([]);',
      '}',
      '{',
      'const axe = new AxeBuilder({ page }).withTags(["wcag2a"]);',
      'axe.include("#newsletter-form");',
      'axe.exclude(".ad");',
      'for (const css of await cssPaths(page.getByRole("img"))) axe.exclude(css);',
      'axe.disableRules(["color-contrast"]);',
      `const violations = (await axe.analyze()).violations.filter((v) => ["critical"].includes(v.impact ?? 'minor'));`,
      "expect(violations.length, violations.map((v) => `${v.id} (${v.impact}): ${v.help}`).join('\\n')).toBeLessThanOrEqual(2);",
      '}',
      '{',
      'const axe = new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]);',
      'await expect(page.getByRole("form", { name: "Newsletter" })).toHaveCount(1);',
      'axe.include((await cssPaths(page.getByRole("form", { name: "Newsletter" })))[0]);',
      `const violations = (await axe.analyze()).violations.filter((v) => ["serious", "critical"].includes(v.impact ?? 'minor'));`,
      'expect(violations.map((v) => `${v.id} (${v.impact}): ${v.help}`)).toEqual([]);',
      '}',
    ]);
    expect(code).toContain('async function cssPaths(locator: Locator): Promise<string[]> {');
    // A spec without one neither imports axe nor carries the helper.
    expect(spec('no-axe', ui({ type: 'goto', url: '/' }))).not.toMatch(/AxeBuilder|cssPaths/);
  });
});

describe('Playwright export: extract steps', () => {
  it('reads fields with the same locators into a constant named by save_as; a model\'s extraction is left as a note', () => {
    const code = spec(
      'extract',
      ui(
        { type: 'goto', url: '/table' },
        { type: 'extract', save_as: 'product', fields: { first: { selector: 'td.name >> nth=0' }, names: { selector: { test_id: 'name' }, all: true }, link: { selector: 'a.next', attribute: 'href' }, links: { selector: 'nav a', attribute: 'href', all: true } } },
        { type: 'extract', instruction: 'the cheapest product', schema: { type: 'object' } },
      ),
    );
    const body = lines(code);
    expect(body).toContain('const product = {');
    expect(body).toContain('"first": (await page.locator("td.name >> nth=0").innerText()).trim(),');
    expect(body).toContain('"names": (await page.getByTestId("name").allInnerTexts()).map((t) => t.trim()),');
    expect(body).toContain('"link": await page.locator("a.next").getAttribute("href"),');
    expect(body).toContain('"links": await Promise.all((await page.locator("nav a").all()).map((e) => e.getAttribute("href"))),');
    expect(code).toContain('svc: an extract step answered by a model is not exported');
  });

  it("a later step's {{product.first}} reads the constant's field, inside text and as a whole value", () => {
    const code = spec(
      'extract-use',
      ui(
        { type: 'goto', url: '/table' },
        { type: 'extract', save_as: 'product', fields: { first: { selector: 'td.name >> nth=0' } } },
        { type: 'fill', selector: '#q', value: '{{product.first}}' },
        { type: 'assert', assertion: { type: 'text', selector: 'h1', contains: 'Found {{product.first}}' } },
      ),
    );
    expect(code).not.toContain('{{product.first}}');
    expect(code).not.toContain('no value for');
    expect(code).toContain('String(product["first"])');
  });
});

describe('Playwright export: API tests', () => {
  it('sends requests through the request fixture and asserts on the latest response', () => {
    const code = spec(
      'api',
      def({
        type: 'api',
        steps: [
          { type: 'request', method: 'POST', url: '/api/orders', headers: { 'X-Trace': 'abc' }, query: { dry: true, n: 2 }, json: { sku: 'L-1', qty: 2, tags: ['a'] }, auth: { type: 'bearer', token: '{{secrets.API_TOKEN}}' }, save: { orderId: '$.body.id' } },
          { type: 'assert', assertion: { type: 'status', equals: 201 } },
          { type: 'assert', assertion: { type: 'header', header: 'Content-Type', contains: 'json' } },
          { type: 'assert', assertion: { type: 'json', path: '$.items[0].sku', equals: 'L-1' } },
          { type: 'request', url: '/api/orders/{{orderId}}', auth: { type: 'basic', username: 'ann', password: 'p:w' } },
          { type: 'assert', assertion: { type: 'status', in: [200, 304] } },
          { type: 'assert', assertion: { type: 'header', header: 'etag', exists: true } },
          { type: 'assert', assertion: { type: 'header', header: 'x-gone', exists: false } },
          { type: 'assert', assertion: { type: 'header', header: 'cache-control', equals: 'no-store' } },
          { type: 'assert', assertion: { type: 'header', header: 'x-id', matches: '^o_' } },
          { type: 'assert', assertion: { type: 'json', path: '$.id', equals: '{{orderId}}' } },
          { type: 'assert', assertion: { type: 'json', path: '$.note', contains: 'lamp' } },
          { type: 'assert', assertion: { type: 'json', path: "$['created at']", matches: '^\\d{4}-' } },
          { type: 'assert', assertion: { type: 'json', path: '$.deleted', exists: false } },
          { type: 'assert', assertion: { type: 'json', path: '$.lines', equals: [{ sku: 'L-1', qty: 2 }] } },
          { type: 'request', method: 'PUT', url: '/api/form', form: { a: '1', b: 'x y' }, auth: { type: 'header', name: 'X-Api-Key', value: 'k' }, timeout_ms: 5000 },
          { type: 'request', method: 'POST', url: '/api/raw', body: 'raw text', headers: { 'content-type': 'text/plain' } },
          { type: 'request', method: 'POST', url: '/api/json-string', json: 'just a string' },
        ],
      }),
    );
    expect(code).toContain(`import { test, expect, type APIResponse } from '@playwright/test';`);
    expect(code).toContain('async ({ request }) => {');
    expect(code).toContain('// Needs the environment variables: SVC_SECRET_API_TOKEN');
    expect(lines(code)).toEqual([
      'test.setTimeout(600000);',
      'const res1 = await request.fetch("/api/orders", {',
      'method: "POST",',
      'headers: {',
      '"X-Trace": "abc",',
      'Authorization: "Bearer " + (process.env.SVC_SECRET_API_TOKEN ?? ""),',
      '},',
      'params: {',
      'dry: true,',
      'n: 2,',
      '},',
      'data: {',
      'sku: "L-1",',
      'qty: 2,',
      'tags: [',
      '"a",',
      '],',
      '},',
      '});',
      'const body1 = await bodyOf(res1);',
      'const orderId = jsonPath({ status: res1.status(), headers: res1.headers(), body: body1 }, "$.body.id");',
      'expect(res1.status()).toBe(201);',
      'expect(res1.headers()["content-type"]).toContain("json");',
      'expect(jsonPath(body1, "$.items[0].sku")).toEqual("L-1");',
      'const res2 = await request.fetch("/api/orders/" + String(orderId), {',
      'headers: {',
      'Authorization: "Basic " + Buffer.from("ann" + ":" + "p:w").toString("base64"),',
      '},',
      '});',
      'expect([200, 304]).toContain(res2.status());',
      'expect(res2.headers()["etag"]).toBeDefined();',
      'expect(res2.headers()["x-gone"]).toBeUndefined();',
      'expect(res2.headers()["cache-control"]).toBe("no-store");',
      'expect(res2.headers()["x-id"]).toMatch(new RegExp("^o_"));',
      'const body2 = await bodyOf(res2);',
      'expect(jsonPath(body2, "$.id")).toEqual(orderId);',
      "expect(typeof jsonPath(body2, \"$.note\")).toBe('string');",
      'expect(jsonPath(body2, "$.note")).toContain("lamp");',
      `expect(jsonPath(body2, "$['created at']")).toMatch(new RegExp("^\\\\d{4}-"));`,
      'expect(jsonPath(body2, "$.deleted")).toBeUndefined();',
      'expect(jsonPath(body2, "$.lines")).toEqual([',
      '{',
      'sku: "L-1",',
      'qty: 2,',
      '},',
      ']);',
      'const res3 = await request.fetch("/api/form", {',
      'method: "PUT",',
      'headers: {',
      '"X-Api-Key": "k",',
      '},',
      'form: {',
      'a: "1",',
      'b: "x y",',
      '},',
      'timeout: 5000,',
      '});',
      "expect(res3.status(), 'a server error, and no status assertion checks this response').toBeLessThan(500);",
      'const res4 = await request.fetch("/api/raw", {',
      'method: "POST",',
      'headers: {',
      '"content-type": "text/plain",',
      '},',
      'data: Buffer.from("raw text"),',
      '});',
      "expect(res4.status(), 'a server error, and no status assertion checks this response').toBeLessThan(500);",
      'const res5 = await request.fetch("/api/json-string", {',
      'method: "POST",',
      'headers: {',
      '"content-type": "application/json",',
      '},',
      'data: JSON.stringify("just a string"),',
      '});',
      "expect(res5.status(), 'a server error, and no status assertion checks this response').toBeLessThan(500);",
    ]);
    expect(code).toContain('function jsonPath(value: unknown, path: string): unknown {');
    expect(code).toContain('async function bodyOf(res: APIResponse): Promise<unknown> {');
  });

  it('times requests when a response_time assertion needs it, and says what it cannot export', () => {
    const code = spec(
      'api-timing',
      def({
        type: 'api',
        steps: [{ type: 'request', url: '/health' }],
        assertions: [
          { type: 'response_time', max_ms: 800 },
          { type: 'json_schema', schema: { type: 'object', required: ['ok'], description: 'ends */ a comment\u2028and a line' } },
        ],
      }),
    );
    expect(lines(code)).toEqual([
      'test.setTimeout(600000);',
      'const started1 = Date.now();',
      'const res1 = await request.fetch("/health");',
      "expect(res1.status(), 'a server error, and no status assertion checks this response').toBeLessThan(500);",
      'const elapsed1 = Date.now() - started1;',
      'expect(elapsed1).toBeLessThanOrEqual(800);',
      `test.info().annotations.push({ type: 'svc', description: "json_schema assertion not exported" });`,
    ]);
    expect(code).toContain('// svc: JSON Schema assertions are not exported');
    expect(code).toContain('  // {"type":"object","required":["ok"],"description":"ends */ a comment\n  // and a line"}');
    expect(code).not.toContain('bodyOf');
  });

  it('fails loudly when an API assertion comes before any request', () => {
    const code = spec('api-early', def({ type: 'api', steps: [{ type: 'assert', assertion: { type: 'status', equals: 200 } }] }));
    expect(lines(code)).toContain('throw new Error("svc: the status assertion comes before any request");');
  });

  it('the emitted JSONPath helper reads $.a.b[0] and bracketed keys', () => {
    const code = exportPlaywrightSpec(def({ type: 'api', steps: [{ type: 'request', url: '/x' }, { type: 'assert', assertion: { type: 'json', path: '$.a', exists: true } }] }));
    const helper = code.slice(code.indexOf('function jsonPath'), code.indexOf('\n}\n', code.indexOf('function jsonPath')) + 2);
    const js = ts.transpileModule(`${helper}\nexport { jsonPath };`, { compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.CommonJS } }).outputText;
    const mod: { exports: { jsonPath?: (v: unknown, p: string) => unknown } } = { exports: {} };
    new Function('module', 'exports', js)(mod, mod.exports);
    const jsonPath = mod.exports.jsonPath as (v: unknown, p: string) => unknown;
    const doc = { a: { b: [{ c: 1 }, 'x'] }, 'key with space': true, n: null };
    expect(jsonPath(doc, '$.a.b[0].c')).toBe(1);
    expect(jsonPath(doc, '$.a.b[1]')).toBe('x');
    expect(jsonPath(doc, "$['key with space']")).toBe(true);
    expect(jsonPath(doc, '$.n')).toBeNull();
    expect(jsonPath(doc, '$.a.b[5]')).toBeUndefined();
    expect(jsonPath(doc, '$.missing.deeper')).toBeUndefined();
    expect(jsonPath(doc, '$.a.toString')).toBeUndefined();
    expect(jsonPath(doc, '$')).toBe(doc);
    expect(() => jsonPath(doc, '$..c')).toThrow(/unsupported JSONPath/);
  });
});

describe('Playwright export: variables', () => {
  it('resolves parameters at export time, keeps saved variables and secrets for run time', () => {
    const code = spec(
      'variables',
      def({
        parameters: { user: 'ann', qty: 3, vip: true },
        steps: [
          { type: 'goto', url: '/shop?u={{user}}&vip={{ vip }}' },
          { type: 'fill', selector: { label: 'Quantity' }, value: '{{qty}}' },
          { type: 'fill', selector: '#password', value: '{{secrets.SHOP_PASSWORD}}' },
          { type: 'fill', selector: '#otp', value: 'otp-{{secrets.otp-code}}-x' },
          { type: 'request', method: 'POST', url: '/api/session', save: { token: '$.body.token', class: '$.body.class' } },
          { type: 'request', method: 'POST', url: '/api/session', save: { token: '$.body.token' } },
          { type: 'fill', selector: '#token', value: 'Bearer {{token}} for {{class}}' },
          { type: 'click', selector: '[data-user="{{user}}"]' },
          { type: 'fill', selector: '#x', value: '{{nobody}}' },
        ],
      }),
    );
    const body = lines(code);
    expect(body).toContain('await page.goto("/shop?u=ann&vip=true");');
    expect(body).toContain('await page.getByLabel("Quantity").fill("3");');
    expect(body).toContain('await page.locator("#password").fill(process.env.SVC_SECRET_SHOP_PASSWORD ?? "");');
    expect(body).toContain('await page.locator("#otp").fill("otp-" + (process.env["SVC_SECRET_otp-code"] ?? "") + "-x");');
    expect(body).toContain('let token = jsonPath({ status: res1.status(), headers: res1.headers(), body: body1 }, "$.body.token");');
    expect(body).toContain('const class_ = jsonPath({ status: res1.status(), headers: res1.headers(), body: body1 }, "$.body.class");');
    expect(body).toContain('token = jsonPath({ status: res2.status(), headers: res2.headers(), body: body2 }, "$.body.token");');
    expect(body).toContain('await page.locator("#token").fill("Bearer " + String(token) + " for " + String(class_));');
    expect(body).toContain('await page.locator("[data-user=\\"ann\\"]").click();');
    expect(body).toContain('await page.locator("#x").fill("{{nobody}}");');
    expect(code).toContain('// svc: no value for {{nobody}} at export time; left as written.');
    expect(code).toContain('async ({ page, request }) => {');
    expect(code).toContain('// Needs the environment variables: SVC_SECRET_SHOP_PASSWORD, SVC_SECRET_otp-code');
  });

  it('a variable used in a substring assertion is escaped at run time', () => {
    const code = spec(
      'variables-regex',
      def({ steps: [{ type: 'request', url: '/api/me', save: { id: '$.body.id' } }, { type: 'goto', url: '/users/{{id}}' }, { type: 'assert', assertion: { type: 'url', contains: '/users/{{id}}' } }] }),
    );
    expect(code).toContain('await expect(page).toHaveURL(new RegExp(escapeRegExp("/users/" + String(id))));');
    expect(code).toContain('function escapeRegExp(text: string): string {');
  });
});

describe('Playwright export: database tests', () => {
  it('are exported as skipped, listing their statements', () => {
    const code = spec(
      'db',
      def({
        type: 'db',
        steps: [
          { type: 'sql', connection: { driver: 'postgres', url_env: 'DATABASE_URL' }, statement: 'SELECT count(*)\nFROM orders\nWHERE status = $1', params: ['paid'] },
          { type: 'assert', assertion: { type: 'row_count', equals: 1 } },
        ],
      }),
    );
    expect(code).toContain('test("A test", async () => {');
    expect(code).toContain(
      [
        '  // svc: this test queries a database, which Playwright tests do not do. Its statements:',
        '  // [postgres, URL from DATABASE_URL]',
        '  //   SELECT count(*)',
        '  //   FROM orders',
        '  //   WHERE status = $1',
        `  test.skip(true, "svc: database steps are not exported to Playwright");`,
      ].join('\n'),
    );
  });

  it('a UI test with a SQL step is skipped too', () => {
    const code = spec('db-mixed', ui({ type: 'goto', url: '/' }, { type: 'sql', connection: { driver: 'mysql', url_env: 'SHOP_DB' }, statement: 'DELETE FROM carts */ -- x' }));
    expect(code).toContain('  //   DELETE FROM carts */ -- x');
    expect(code).toContain('test.skip(true,');
    expect(code).not.toContain('page.goto');
  });
});

describe('Playwright export: hostile input', () => {
  const nasty = 'He said "hi" \\ `tick` ${x} */ /* \n newline \r cr \u2028 ls \u2029 ps \uD800 lone </script> \u0000 nul';

  it('any string survives as an exact string literal', () => {
    const code = spec(
      'hostile',
      def({
        name: nasty.slice(0, 255),
        description: nasty,
        parameters: { p: nasty },
        steps: [
          { type: 'goto', url: `/?q=${nasty}` },
          { type: 'fill', selector: { label: nasty }, value: '{{p}}', name: nasty },
          { type: 'assert', assertion: { type: 'text', selector: { role: 'heading', name: nasty }, matches: '"\\/*`' } },
          { type: 'request', method: 'POST', url: '/x', headers: { [nasty]: nasty }, json: { [nasty]: [nasty, 1, null, false], ['__proto__']: nasty } },
        ],
      }),
    );
    const source = ts.createSourceFile('hostile.spec.ts', code, ts.ScriptTarget.ES2022, true);
    const strings: string[] = [];
    const visit = (n: ts.Node) => {
      if (ts.isStringLiteral(n)) strings.push(n.text);
      n.forEachChild(visit);
    };
    visit(source);
    expect(strings).toContain(nasty.slice(0, 255)); // the test title
    expect(strings).toContain(`/?q=${nasty}`);
    expect(strings.filter((s) => s === nasty).length).toBeGreaterThanOrEqual(5); // label, value, role name, header, json
    expect(strings).toContain('"\\/*`');
    expect(strings).toContain('__proto__'); // a computed key: an own property, not the prototype
    expect(code).toContain('["__proto__"]: ');
    // Comments carry the description and step name but never break out of the comment.
    const commentLines = code.split('\n').filter((l) => l.trimStart().startsWith('//'));
    expect(commentLines.some((l) => l.includes('newline'))).toBe(true);
  });
});

describe('Playwright export: project', () => {
  it('writes a config and one spec per test with unique file names', () => {
    const tests = [def({ name: 'Login works', steps: [{ type: 'goto', url: '/' }] }), def({ name: 'Login works!', steps: [{ type: 'goto', url: '/' }] }), def({ name: '日本語', steps: [{ type: 'goto', url: '/' }] })];
    const files = exportPlaywrightProject(tests, { baseUrl: 'http://127.0.0.1:4000' });
    expect(files.map((f) => f.path)).toEqual(['playwright.config.ts', 'tests/login-works.spec.ts', 'tests/login-works-2.spec.ts', 'tests/test.spec.ts']);
    const config = files[0].content;
    expect(syntaxErrors(config, 'playwright.config.ts')).toEqual([]);
    expect(config).toContain(`import { defineConfig } from '@playwright/test';`);
    expect(config).toContain('executablePath: process.env.SVC_CHROMIUM_PATH || undefined,');
    expect(config).toContain('JSON.parse(process.env.SVC_CHROMIUM_ARGS)');
    expect(config).toContain('headless: true,');
    expect(config).toContain(`reporter: 'list',`);
    expect(config).toContain('baseURL: process.env.SVC_BASE_URL || "http://127.0.0.1:4000",');
    // The project config carries the base URL, so specs do not repeat it.
    expect(files[1].content).not.toContain('test.use(');
    generated.set('playwright.config.ts', config);
    files.slice(1).forEach((f, i) => generated.set(`project-${i}.spec.ts`, f.content));
  });
});

describe('Playwright export: type check', () => {
  it('every generated file type-checks against @playwright/test', () => {
    expect(generated.size).toBeGreaterThan(15);
    expect(typeErrors(Object.fromEntries(generated))).toEqual([]);
  });
});
