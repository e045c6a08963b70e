/**
 * Helper functions emitted into an exported spec, only when the spec uses them. They are
 * plain text here, written in the style of a hand-written test file.
 */

export type HelperName = 'jsonPath' | 'bodyOf' | 'escapeRegExp' | 'cssPaths' | 'device' | 'watchConsole';

const HELPERS: Record<HelperName, string> = {
  watchConsole: `/**
 * The page's console errors and uncaught exceptions from the start of the test, as svc's
 * no_console_error sees them (Chromium's own "Failed to load resource" lines left out: a
 * failed request is no script error), and settle(): resolves once no request has been in
 * flight for quietMs, at most maxMs, so an error thrown just after a fetch is seen.
 */
function watchConsole(page: Page) {
  const errors: string[] = [];
  const inflight = new Set<Request>();
  let changed = Date.now();
  page.on('console', (message) => {
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource: ')) errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(\`Uncaught \${error.message}\`));
  page.on('request', (request) => {
    inflight.add(request);
    changed = Date.now();
  });
  const done = (request: Request) => {
    inflight.delete(request);
    changed = Date.now();
  };
  page.on('requestfinished', done);
  page.on('requestfailed', done);
  return {
    errors,
    async settle(quietMs: number, maxMs: number): Promise<void> {
      const start = Date.now();
      while (Date.now() - start < maxMs) {
        if (inflight.size === 0 && Date.now() - Math.max(changed, start) >= quietMs) return;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
  };
}`,
  device: `/**
 * A Playwright device's options without its browser engine: svc runs every test in
 * Chromium, and an engine set inside a describe block would need a worker of its own.
 */
function device(name: string) {
  const { defaultBrowserType: _engine, ...options } = devices[name];
  return options;
}`,
  jsonPath: `/**
 * Reads a value by a simple JSONPath: $.a.b[0], $['key with spaces'], and the wildcards
 * [*] / .* — a path with a wildcard yields the list of matches, as in svc's runner.
 * undefined when absent.
 */
function jsonPath(value: unknown, path: string): unknown {
  const step = /\\.([A-Za-z_$][\\w$-]*)|\\[(\\d+)\\]|\\[(['"])(.*?)\\3\\]|(\\[\\*\\]|\\.\\*)/y;
  let nodes: unknown[] = [value];
  let many = false;
  step.lastIndex = path.startsWith('$') ? 1 : 0;
  while (step.lastIndex < path.length) {
    const m = step.exec(path);
    if (!m) throw new Error(\`unsupported JSONPath: \${path}\`);
    const next: unknown[] = [];
    for (const node of nodes) {
      if (node === null || typeof node !== 'object') continue;
      if (m[5] !== undefined) {
        next.push(...Object.values(node as Record<string, unknown>));
        continue;
      }
      const k = m[2] !== undefined ? Number(m[2]) : (m[1] ?? m[4]);
      if (Object.prototype.hasOwnProperty.call(node, k)) next.push((node as Record<string | number, unknown>)[k]);
    }
    if (m[5] !== undefined) many = true;
    nodes = next;
  }
  return many ? nodes : nodes[0];
}`,
  bodyOf: `/** The response body: parsed JSON when the response says it is JSON, else the text. */
async function bodyOf(res: APIResponse): Promise<unknown> {
  const text = await res.text();
  if (text === '' || !/[/+]json\\b/i.test(res.headers()['content-type'] ?? '')) return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}`,
  escapeRegExp: `/** Escapes text for use inside a regular expression. */
function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^\${}()|[\\]\\\\/-]/g, '\\\\$&');
}`,
  cssPaths: `/** CSS paths of the elements a locator finds now: AxeBuilder takes CSS selectors, not locators. */
async function cssPaths(locator: Locator): Promise<string[]> {
  return locator.evaluateAll((elements) =>
    elements.map((element) => {
      const parts: string[] = [];
      for (let e: Element = element; e.parentElement; e = e.parentElement) parts.unshift(\`\${e.localName}:nth-child(\${Array.from(e.parentElement.children).indexOf(e) + 1})\`);
      return [':root', ...parts].join(' > ');
    }),
  );
}`,
};

export function helperSource(name: HelperName): string {
  return HELPERS[name];
}
