import type * as TS from 'typescript';
import type { Analysis, Extracted, FileReport, Finding, SkippedFile, SourceFile, Surface, UiElement, UiForm } from './types.ts';
import { blockedReason } from './blocked.ts';
import { isConfigFile, redactSecrets } from './secrets.ts';
import { findPersonalData } from './personal-data.ts';
import { classifyFile } from './classify.ts';
import { isMarkup, isScript, isTestFile, languageOf } from './languages.ts';
import { extractMarkup } from './markup.ts';
import { isOpenApiDocument, openApiSurfaces } from './openapi.ts';
import { nextRoots, nextSurfaces } from './nextjs.ts';
import { entryPoints, packageFrameworks, summarise } from './summary.ts';

export type { Analysis, SourceFile, Surface, UiElement, UiForm, SkippedFile } from './types.ts';
export { blockedReason } from './blocked.ts';
export { redactSecrets } from './secrets.ts';
export { findPersonalData, luhnValid } from './personal-data.ts';
export { classifyFile } from './classify.ts';

export interface AnalyzeOptions {
  /** Files the reader already skipped (limits, binary, blocked), carried into the result. */
  skipped?: SkippedFile[];
  /** Return each file's redacted text (for a model prompt, say). Off by default. */
  includeContent?: boolean;
  /** Files larger than this are not parsed (default 2 MB): a generated bundle is no surface. */
  maxParseBytes?: number;
}

const encoder = new TextEncoder();

/**
 * Finds testable surfaces in a codebase given as files (no file system here: the caller
 * reads, see functions' read-repository). Order of work per file: blocked? → redact
 * secrets → flag personal data → classify → extract from the redacted text. So nothing
 * derived from a file can carry a secret (spec rule 7).
 *
 * Async only because the TypeScript parser is loaded on first use.
 */
export async function analyzeFiles(input: SourceFile[], options: AnalyzeOptions = {}): Promise<Analysis> {
  const maxParse = options.maxParseBytes ?? 2 * 1024 * 1024;
  const skipped: SkippedFile[] = [...(options.skipped ?? [])];
  const reports: FileReport[] = [];
  const secrets: Finding[] = [];
  const personal: Finding[] = [];
  const readable: SourceFile[] = [];
  const seen = new Set<string>();

  for (const f of input) {
    const path = f.path.replace(/\\/g, '/').replace(/^\.?\//, '');
    if (seen.has(path)) {
      skipped.push({ path, reason: 'duplicate path' });
      continue;
    }
    seen.add(path);
    const blocked = blockedReason(path);
    if (blocked) {
      skipped.push({ path, reason: blocked });
      continue;
    }
    const redacted = redactSecrets(f.content, { config: isConfigFile(path) });
    const pd = findPersonalData(redacted.text);
    const bytes = encoder.encode(f.content).length;
    for (const s of redacted.findings) secrets.push({ file: path, line: s.line, kind: s.kind });
    for (const p of pd) personal.push({ file: path, line: p.line, kind: p.kind });
    reports.push({
      path, language: languageOf(path), bytes, classification: classifyFile(path, redacted.findings, pd), secrets_redacted: redacted.findings.length, personal_data: pd.length,
      ...(options.includeContent ? { content: redacted.text } : {}),
    });
    readable.push({ path, content: redacted.text });
  }

  const needsTs = readable.some((f) => isScript(f.path));
  const ts = needsTs ? await loadTypeScript() : undefined;
  const { extractScript, exportedNames } = await import('./script.ts');
  const roots = nextRoots(readable);
  const surfaces: Surface[] = [];
  const elements: UiElement[] = [];
  const forms: UiForm[] = [];
  const frameworks: string[] = [];
  const add = (e: Extracted) => {
    surfaces.push(...e.surfaces);
    elements.push(...e.elements);
    forms.push(...e.forms);
    frameworks.push(...e.frameworks);
  };

  for (const f of readable) {
    const name = f.path.split('/').at(-1)!;
    if (name === 'package.json') frameworks.push(...packageFrameworks(f.content));
    if (isTestFile(f.path)) continue;
    if (f.content.length > maxParse && (isScript(f.path) || isMarkup(f.path))) {
      skipped.push({ path: f.path, reason: `not parsed: larger than ${maxParse} bytes (likely generated)` });
      continue;
    }
    try {
      if (isScript(f.path) && ts) {
        add(extractScript(ts, f.path, f.content));
        if (roots.length) surfaces.push(...nextSurfaces({ path: f.path, exported: () => exportedNames(ts, f.path, f.content) }, roots));
      } else if (/\.mdx$/i.test(f.path) && roots.length) {
        surfaces.push(...nextSurfaces({ path: f.path, exported: () => [] }, roots));
      } else if (isMarkup(f.path)) {
        add(extractMarkup(f.path, f.content));
      } else if (isOpenApiDocument(f.path, f.content)) {
        const r = openApiSurfaces(f.path, f.content);
        surfaces.push(...r.surfaces);
        frameworks.push('openapi');
        if (r.error) skipped.push({ path: f.path, reason: `OpenAPI document only partly read: ${r.error}` });
      }
    } catch (err) {
      // One unparseable file never sinks the analysis; it is reported instead.
      skipped.push({ path: f.path, reason: `could not be parsed: ${(err as Error).message.slice(0, 200)}` });
    }
  }
  if (roots.length) frameworks.push('nextjs');

  const order = (a: { file: string; line: number }, b: { file: string; line: number }) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line);
  dedupe(surfaces, (s) => `${s.kind} ${s.method} ${s.path} ${s.file}`);
  surfaces.sort(order);
  elements.sort(order);
  forms.sort(order);
  const summary = summarise({
    files: reports, surfaces, elements, forms, skipped, frameworks, entryPoints: entryPoints(readable), secrets: secrets.length, personal: personal.length,
  });
  return { summary, surfaces, elements, forms, files: reports, secrets, personal_data: personal, skipped };
}

/** The compiler is CommonJS: its API sits on `default` when imported from ESM. */
async function loadTypeScript(): Promise<typeof TS> {
  const mod = (await import('typescript')) as unknown as typeof TS & { default?: typeof TS };
  return mod.default ?? mod;
}

/** Drops exact repeats in place (an index route declared next to its parent, say). */
function dedupe<T>(items: T[], key: (t: T) => string) {
  const seen = new Set<string>();
  let w = 0;
  for (const it of items) {
    const k = key(it);
    if (seen.has(k)) continue;
    seen.add(k);
    items[w++] = it;
  }
  items.length = w;
}
