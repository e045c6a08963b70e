import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';

export interface WebAsset {
  body: Uint8Array;
  contentType: string;
}

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json; charset=utf-8',
  '.ttf': 'font/ttf',
  '.webmanifest': 'application/manifest+json',
};

export interface StaticFolderOptions {
  /** An extension-less path also finds `<path>.html` ("/sign-in" → sign-in.html). */
  htmlPages?: boolean;
}

/**
 * A loader for one folder of static files, by URL path ("/assets/app.js"). "/" and paths
 * ending in "/" serve index.html. Only files inside the folder with a known content type
 * are served; traversal ("..", backslashes, encoded separators), dot-files and missing
 * files give undefined. The folder is read in full and cached on first use, so requests for
 * unknown paths never touch the disk (and cannot grow the cache). `root` may be undefined
 * (the folder is not installed): then nothing is served.
 */
export function staticFolder(root: () => string | undefined, options: StaticFolderOptions = {}) {
  let assets: Promise<Map<string, WebAsset>> | undefined;

  return async function load(urlPath: string): Promise<WebAsset | undefined> {
    const rel = relativePathOf(urlPath);
    if (rel === undefined) return undefined;
    assets ??= loadAll(root()).catch((err: unknown) => {
      assets = undefined;
      throw err;
    });
    const map = await assets;
    return map.get(rel) ?? (options.htmlPages && path.posix.extname(rel) === '' ? map.get(`${rel}.html`) : undefined);
  };
}

/** The file a URL path names within the folder, or undefined when it may not name one. */
function relativePathOf(urlPath: string): string | undefined {
  let rel: string;
  try {
    rel = decodeURIComponent(urlPath.split(/[?#]/, 1)[0] ?? '');
  } catch {
    return undefined;
  }
  rel = rel.replace(/^\/+/, '');
  if (rel === '') rel = 'index.html';
  if (rel.endsWith('/')) rel += 'index.html';
  if (rel.includes('\\') || rel.includes('\0')) return undefined;
  const segments = rel.split('/');
  if (segments.some((s) => s === '' || s === '.' || s === '..' || s.startsWith('.'))) return undefined;
  return rel;
}

async function loadAll(root: string | undefined): Promise<Map<string, WebAsset>> {
  const map = new Map<string, WebAsset>();
  if (root === undefined) return map;
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    const contentType = CONTENT_TYPES[path.extname(entry.name).toLowerCase()];
    if (!contentType) continue;
    const key = path.relative(root, file).split(path.sep).join('/');
    if (key.split('/').some((segment) => segment.startsWith('.'))) continue;
    map.set(key, { body: new Uint8Array(await readFile(file)), contentType });
  }
  return map;
}
