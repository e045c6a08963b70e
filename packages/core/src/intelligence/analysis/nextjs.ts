import type { Surface } from './types.ts';

/**
 * Next.js file-system routes. A folder is a Next.js project root when it holds
 * next.config.* or a package.json depending on `next`; `app/` and `pages/` (or `src/app`,
 * `src/pages`) under such a root are routers. Elsewhere a folder called `pages` is just a
 * folder (page objects in tests, for instance).
 */

const pageFile = /^page\.(tsx|ts|jsx|js|mdx)$/;
const routeFile = /^route\.(ts|js|tsx|jsx)$/;
const handlerMethods = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS']);

export function nextRoots(files: Array<{ path: string; content: string }>): string[] {
  const roots = new Set<string>();
  for (const f of files) {
    const name = f.path.split('/').at(-1)!;
    const dir = f.path.slice(0, f.path.length - name.length);
    if (/^next\.config\.(js|mjs|cjs|ts)$/.test(name)) roots.add(dir);
    if (name === 'package.json' && /"next"\s*:/.test(f.content)) roots.add(dir);
  }
  return [...roots];
}

/** Converts segment syntax: [id] → :id, [...slug] → :slug*, [[...slug]] → :slug*?; drops (groups) and @slots. */
function segmentsToPath(segments: string[]): string | null {
  const out: string[] = [];
  for (const s of segments) {
    if (/^\(.*\)$/.test(s) || s.startsWith('@')) continue; // route groups, parallel slots
    if (s.startsWith('_')) return null; // private folders are not routable
    if (/^\(\.+\)/.test(s)) continue; // intercepting routes mirror another route
    const optionalCatchAll = /^\[\[\.\.\.(.+)\]\]$/.exec(s);
    const catchAll = /^\[\.\.\.(.+)\]$/.exec(s);
    const dynamic = /^\[(.+)\]$/.exec(s);
    if (optionalCatchAll) out.push(`:${optionalCatchAll[1]}*?`);
    else if (catchAll) out.push(`:${catchAll[1]}*`);
    else if (dynamic) out.push(`:${dynamic[1]}`);
    else out.push(s);
  }
  return '/' + out.join('/');
}

export interface NextFile {
  path: string;
  exported: () => Array<{ name: string; line: number }>;
}

/** Surfaces of one file if it is a Next.js page or route handler under one of `roots`. */
export function nextSurfaces(file: NextFile, roots: string[]): Surface[] {
  for (const root of roots) {
    for (const base of [`${root}app/`, `${root}src/app/`]) {
      if (!file.path.startsWith(base)) continue;
      const rel = file.path.slice(base.length).split('/');
      const name = rel.pop()!;
      const path = segmentsToPath(rel);
      if (path === null) return [];
      if (pageFile.test(name)) return [{ kind: 'page', method: 'GET', path, file: file.path, line: 1, framework: 'nextjs-app' }];
      if (routeFile.test(name)) {
        return file
          .exported()
          .filter((e) => handlerMethods.has(e.name))
          .map((e) => ({ kind: 'api_route' as const, method: e.name, path, file: file.path, line: e.line, framework: 'nextjs-app' }));
      }
      return [];
    }
    for (const base of [`${root}pages/`, `${root}src/pages/`]) {
      if (!file.path.startsWith(base) || !/\.(tsx|ts|jsx|js|mdx)$/.test(file.path)) continue;
      const rel = file.path.slice(base.length).replace(/\.(tsx|ts|jsx|js|mdx)$/, '').split('/');
      if (rel.some((s) => s.startsWith('_'))) return []; // _app, _document, _error, _middleware
      if (rel.at(-1) === 'index') rel.pop();
      const path = segmentsToPath(rel);
      if (path === null) return [];
      const api = rel[0] === 'api';
      return [{ kind: api ? 'api_route' : 'page', method: api ? 'ANY' : 'GET', path: path === '/' || path.length === 1 ? '/' : path, file: file.path, line: 1, framework: 'nextjs-pages' }];
    }
  }
  return [];
}
