import type { Surface } from './types.ts';
import { normaliseMethod } from './route-paths.ts';

/**
 * OpenAPI / Swagger documents, JSON or YAML. There is no YAML library in the project, so
 * YAML is read by indentation: find the top-level `paths:` block, its path keys and their
 * method keys (plus operationId). Anchors, flow mappings and multi-document streams are
 * not followed; a document the reader cannot follow yields what it could read.
 */

const operationMethods = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

export function isOpenApiDocument(path: string, text: string): boolean {
  if (/\.json$/i.test(path)) return /^\s*\{[\s\S]*"(openapi|swagger)"\s*:/.test(text.slice(0, 4096)) && /"paths"\s*:/.test(text);
  if (/\.ya?ml$/i.test(path)) return /^(openapi|swagger)\s*:/m.test(text) && /^paths\s*:/m.test(text);
  return false;
}

export function openApiSurfaces(path: string, text: string): { surfaces: Surface[]; error?: string } {
  return /\.json$/i.test(path) ? fromJson(path, text) : fromYaml(path, text);
}

function fromJson(file: string, text: string): { surfaces: Surface[]; error?: string } {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    return { surfaces: [], error: `invalid JSON: ${(err as Error).message}` };
  }
  const paths = (doc as { paths?: unknown }).paths;
  if (!paths || typeof paths !== 'object') return { surfaces: [] };
  const lines = text.split('\n');
  const lineOf = (needle: string, from = 0) => {
    for (let i = from; i < lines.length; i++) if (lines[i].includes(needle)) return i + 1;
    return 1;
  };
  const surfaces: Surface[] = [];
  for (const [p, ops] of Object.entries(paths as Record<string, unknown>)) {
    if (!ops || typeof ops !== 'object') continue;
    const pathLine = lineOf(JSON.stringify(p));
    for (const [m, op] of Object.entries(ops as Record<string, unknown>)) {
      if (!operationMethods.has(m.toLowerCase())) continue;
      const operationId = op && typeof op === 'object' ? (op as { operationId?: unknown }).operationId : undefined;
      surfaces.push({
        kind: 'openapi_operation', method: normaliseMethod(m) ?? m.toUpperCase(), path: toRoutePath(p), file, line: lineOf(`"${m}"`, pathLine - 1), framework: 'openapi',
        ...(typeof operationId === 'string' ? { name: operationId } : {}),
      });
    }
  }
  return { surfaces };
}

const indentOf = (line: string) => line.length - line.trimStart().length;
const unquote = (s: string) => s.trim().replace(/^(['"])(.*)\1$/, '$2');
/** `key: value` → key, for a mapping line (not a list item or comment). */
function keyOf(line: string): string | undefined {
  const t = line.trim();
  if (!t || t.startsWith('#') || t.startsWith('-')) return undefined;
  const m = /^("[^"]*"|'[^']*'|[^:#]+?)\s*:(\s|$)/.exec(t);
  return m ? unquote(m[1]) : undefined;
}

function fromYaml(file: string, text: string): { surfaces: Surface[]; error?: string } {
  const lines = text.split(/\r?\n/);
  const start = lines.findIndex((l) => /^paths\s*:\s*(#.*)?$/.test(l));
  if (start < 0) return { surfaces: [], error: 'no top-level "paths:" block (flow-style YAML is not supported)' };
  const surfaces: Surface[] = [];
  let pathIndent = -1;
  let methodIndent = -1;
  let currentPath: string | undefined;
  let current: Surface | undefined;
  for (let i = start + 1; i < lines.length; i++) {
    const line = lines[i];
    if (!line.trim() || line.trim().startsWith('#')) continue;
    const indent = indentOf(line);
    if (indent === 0) break; // next top-level key
    const key = keyOf(line);
    if (pathIndent < 0) pathIndent = indent;
    if (indent === pathIndent) {
      currentPath = key && key.startsWith('/') ? key : undefined;
      methodIndent = -1;
      current = undefined;
      continue;
    }
    if (!currentPath || indent < pathIndent) continue;
    if (methodIndent < 0 && indent > pathIndent) methodIndent = indent;
    if (indent === methodIndent && key) {
      current = undefined;
      if (operationMethods.has(key.toLowerCase())) {
        current = { kind: 'openapi_operation', method: key.toUpperCase(), path: toRoutePath(currentPath), file, line: i + 1, framework: 'openapi' };
        surfaces.push(current);
      }
      continue;
    }
    if (current && indent > methodIndent && key === 'operationId' && current.name === undefined) {
      current.name = unquote(line.trim().slice(line.trim().indexOf(':') + 1).replace(/\s#.*$/, ''));
    }
  }
  return { surfaces };
}

/** `/pets/{petId}` → `/pets/:petId`, the path style every other surface uses. */
const toRoutePath = (p: string) => p.replace(/\{([^}]+)\}/g, ':$1');
