/** Path helpers shared by the route extractors. */

export const httpMethods = new Set(['get', 'post', 'put', 'patch', 'delete', 'head', 'options', 'all']);

export function normaliseMethod(m: string): string | null {
  const lower = m.toLowerCase();
  if (lower === 'all' || lower === '*' || lower === 'any') return 'ANY';
  return httpMethods.has(lower) ? lower.toUpperCase() : null;
}

/** Joins a parent route and a child route the way React Router does. */
export function joinPaths(parent: string, child: string): string {
  if (child.startsWith('/')) return child;
  const base = parent.endsWith('/') ? parent.slice(0, -1) : parent;
  return `${base}/${child}` || '/';
}

/** Looks like a route path, not a file path or URL. */
export const isRoutePath = (s: string) => (s.startsWith('/') || s === '*') && !/\s/.test(s) && !s.startsWith('//') && s.length <= 512;
