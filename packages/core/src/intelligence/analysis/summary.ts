import type { Classification, CodebaseSummary, FileReport, Surface, UiElement, UiForm, SkippedFile } from './types.ts';
import { highestClassification } from './classify.ts';

const dependencyFrameworks: Record<string, string> = {
  express: 'express', fastify: 'fastify', hono: 'hono', koa: 'koa', '@koa/router': 'koa', next: 'nextjs', react: 'react',
  'react-router': 'react-router', 'react-router-dom': 'react-router', vue: 'vue', '@angular/core': 'angular', svelte: 'svelte',
  '@nestjs/core': 'nestjs', '@remix-run/react': 'remix', nuxt: 'nuxt', 'playwright-core': 'playwright', '@playwright/test': 'playwright',
  cypress: 'cypress', vitest: 'vitest', jest: 'jest',
};

/** Frameworks named in a package.json's dependencies. */
export function packageFrameworks(content: string): string[] {
  try {
    const pkg = JSON.parse(content) as Record<string, Record<string, string> | undefined>;
    const names = Object.keys({ ...pkg.dependencies, ...pkg.devDependencies, ...pkg.peerDependencies });
    return names.map((n) => dependencyFrameworks[n]).filter((f): f is string => Boolean(f));
  } catch {
    return [];
  }
}

/** Entry points: package.json main/bin/module, and files that start a server. */
export function entryPoints(files: Array<{ path: string; content: string }>): string[] {
  const out = new Set<string>();
  for (const f of files) {
    const name = f.path.split('/').at(-1)!;
    const dir = f.path.slice(0, f.path.length - name.length);
    if (name === 'package.json') {
      try {
        const pkg = JSON.parse(f.content) as { main?: unknown; module?: unknown; bin?: unknown };
        for (const v of [pkg.main, pkg.module, ...(typeof pkg.bin === 'string' ? [pkg.bin] : pkg.bin && typeof pkg.bin === 'object' ? Object.values(pkg.bin) : [])]) {
          if (typeof v === 'string') out.add(dir + v.replace(/^\.\//, ''));
        }
      } catch {
        // an unreadable package.json is reported by nothing else; its entry points are just unknown
      }
    } else if (/\.(ts|js|mjs|cjs)$/.test(name) && /\.listen\(\s*[\w.]*\s*[,)]|\blisten\(\{|serve\(\{\s*fetch/.test(f.content)) {
      out.add(f.path);
    } else if (/^index\.html?$/i.test(name) && dir.split('/').length <= 3) {
      out.add(f.path);
    }
  }
  return [...out].sort();
}

export function summarise(input: {
  files: FileReport[];
  surfaces: Surface[];
  elements: UiElement[];
  forms: UiForm[];
  skipped: SkippedFile[];
  frameworks: string[];
  entryPoints: string[];
  secrets: number;
  personal: number;
}): CodebaseSummary {
  const langs = new Map<string, { files: number; bytes: number }>();
  for (const f of input.files) {
    const l = langs.get(f.language) ?? { files: 0, bytes: 0 };
    l.files++;
    l.bytes += f.bytes;
    langs.set(f.language, l);
  }
  const languages = [...langs].map(([language, v]) => ({ language, ...v })).sort((a, b) => b.files - a.files || b.bytes - a.bytes);
  const count = (k: Surface['kind']) => input.surfaces.filter((s) => s.kind === k).length;
  const classification: Record<Classification, number> = { public: 0, internal: 0, confidential: 0, restricted: 0 };
  for (const f of input.files) classification[f.classification]++;
  const frameworks = [...new Set(input.frameworks)].sort();
  const counts = {
    surfaces: input.surfaces.length,
    http_routes: count('http_route'),
    api_routes: count('api_route'),
    pages: count('page'),
    client_routes: count('client_route'),
    openapi_operations: count('openapi_operation'),
    elements: input.elements.length,
    forms: input.forms.length,
    skipped: input.skipped.length,
    secrets_redacted: input.secrets,
    personal_data: input.personal,
  };
  const highest = highestClassification(input.files.map((f) => f.classification));
  const top = languages.slice(0, 4).map((l) => `${l.language} ${l.files}`).join(', ');
  const text =
    `${input.files.length} files analysed (${top || 'none'}), ${input.skipped.length} skipped. ` +
    `Frameworks: ${frameworks.join(', ') || 'none detected'}. ` +
    `${counts.surfaces} surfaces: ${counts.http_routes} HTTP routes, ${counts.api_routes} API routes, ${counts.pages} pages, ${counts.client_routes} client routes, ${counts.openapi_operations} OpenAPI operations; ` +
    `${counts.elements} elements with test ids or roles, ${counts.forms} forms. ` +
    `${counts.secrets_redacted} secrets redacted, ${counts.personal_data} personal-data findings; highest classification ${highest}.`;
  return {
    files: input.files.length,
    bytes: input.files.reduce((a, f) => a + f.bytes, 0),
    languages,
    frameworks,
    entry_points: input.entryPoints,
    counts,
    classification,
    highest_classification: highest,
    text,
  };
}
