import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { AxeScan, MAX_NODE_HTML, MAX_NODES_PER_VIOLATION, MAX_VIOLATIONS_KEPT } from '@svc/core/contracts/accessibility';
import { evaluateIsolated } from './isolated-world.ts';

let source: Promise<string> | undefined;
/**
 * axe-core's browser build, read from the installed package (once per process). Read as a
 * file rather than imported: a bundler may rewrite an imported module's functions (esbuild's
 * keepNames adds __name calls), and axe's own `axe.source` is made from their text. Every
 * bundle that runs it therefore has axe-core installed beside it (infra: the task
 * functions' nodejs.install; the CLI build keeps node_modules packages external).
 */
export function axeSource(): Promise<string> {
  return (source ??= readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8').catch((e: unknown) => {
    source = undefined;
    throw e;
  }));
}

export interface AxeRunOptions {
  /** Absolute XPath of the one element to check (default the document). */
  include?: string;
  /** Absolute XPaths of elements left out. */
  exclude: string[];
  tags: string[];
  disableRules: string[];
}

/** The in-page half, as plain JavaScript (see fingerprint.ts on why not a function literal). */
const RUNNER = String.raw`async (o) => {
  const byXpath = (xp) => document.evaluate(xp, document, null, XPathResult.FIRST_ORDERED_NODE_TYPE, null).singleNodeValue;
  let include = document;
  if (o.include) {
    include = byXpath(o.include);
    if (!include) return { scopeMissing: true };
  }
  // axe runs nothing for a tag it does not know, and says nothing: a typo would pass every page.
  const known = axe.getRules();
  const knownTags = new Set(known.flatMap((rule) => rule.tags));
  const knownRules = new Set(known.map((rule) => rule.ruleId));
  const unknownTags = o.tags.filter((t) => !knownTags.has(t));
  const unknownRules = o.disableRules.filter((id) => !knownRules.has(id));
  if (unknownTags.length || unknownRules.length) return { unknownTags, unknownRules };
  const exclude = o.exclude.map(byXpath).filter(Boolean);
  const context = exclude.length ? { include: [include], exclude } : include;
  const rules = {};
  for (const id of o.disableRules) rules[id] = { enabled: false };
  const r = await axe.run(context, {
    runOnly: { type: 'tag', values: o.tags },
    rules,
    resultTypes: ['violations'],
    iframes: false,
    elementRef: false,
    ancestry: false,
    xpath: false,
  });
  const text = (s, n) => (typeof s === 'string' ? (s.length > n ? s.slice(0, n) + '…' : s) : '');
  const target = (t) => (Array.isArray(t) ? t.join(' >>> ') : String(t));
  return {
    url: r.url,
    engine: r.testEngine && r.testEngine.version ? r.testEngine.version : 'unknown',
    violations: r.violations.slice(0, o.maxViolations).map((v) => ({
      id: v.id,
      impact: v.impact || null,
      help: v.help,
      description: v.description,
      help_url: v.helpUrl,
      tags: v.tags,
      node_count: v.nodes.length,
      nodes: v.nodes.slice(0, o.maxNodes).map((n) => ({
        target: (n.target || []).slice(0, 20).map(target),
        html: text(n.html, o.maxHtml),
        ...(n.failureSummary ? { failure_summary: text(n.failureSummary, 1999) } : {}),
      })),
    })),
    violation_count: r.violations.length,
    passes: r.passes.length,
    incomplete: r.incomplete.length,
    inapplicable: r.inapplicable.length,
  };
}`;

/** Tags or rule ids this axe-core does not have (the message names them). */
export class AxeOptionsError extends Error {
  override name = 'AxeOptionsError';
  constructor(readonly unknownTags: string[], readonly unknownRules: string[]) {
    super([unknownTags.length ? `unknown tag${unknownTags.length > 1 ? 's' : ''} ${unknownTags.join(', ')}` : '', unknownRules.length ? `unknown rule${unknownRules.length > 1 ? 's' : ''} ${unknownRules.join(', ')}` : ''].filter(Boolean).join('; '));
  }
}

/**
 * Runs axe-core on the page in an isolated world (evaluateIsolated): the page's scripts
 * neither see axe nor can break it. Only the main frame's document is checked (iframes:
 * false — axe would wait for copies of itself in the frames, which an isolated world does
 * not have). Returns undefined when the `include` element is gone from the document;
 * throws AxeOptionsError for tags or rules axe does not have.
 */
export async function runAxe(page: Page, o: AxeRunOptions, timeoutMs: number): Promise<AxeScan | undefined> {
  const args = { ...o, maxViolations: MAX_VIOLATIONS_KEPT, maxNodes: MAX_NODES_PER_VIOLATION, maxHtml: MAX_NODE_HTML };
  const expression = `${await axeSource()}\n;(${RUNNER})(${JSON.stringify(args)})`;
  const raw = await evaluateIsolated<unknown>(page, expression, timeoutMs);
  if (raw && typeof raw === 'object' && 'scopeMissing' in raw) return undefined;
  if (raw && typeof raw === 'object' && 'unknownTags' in raw) {
    const r = raw as { unknownTags: string[]; unknownRules: string[] };
    throw new AxeOptionsError(r.unknownTags, r.unknownRules);
  }
  return AxeScan.parse(raw);
}
