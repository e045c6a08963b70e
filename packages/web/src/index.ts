import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Absolute path of the folder holding the dashboard's static files. */
export const webRoot: string = fileURLToPath(new URL('../public', import.meta.url));

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
};

/**
 * Every servable file under public/, keyed by its URL path without the leading
 * slash ("index.html", "assets/app.js"). Built once, on first use: the folder is
 * read in full and cached, so requests for unknown paths never touch the disk
 * (and cannot grow the cache).
 */
let assets: Promise<Map<string, WebAsset>> | undefined;

async function loadAll(): Promise<Map<string, WebAsset>> {
  const map = new Map<string, WebAsset>();
  const entries = await readdir(webRoot, { recursive: true, withFileTypes: true });
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    const contentType = CONTENT_TYPES[path.extname(entry.name).toLowerCase()];
    if (!contentType) continue;
    const key = path.relative(webRoot, file).split(path.sep).join('/');
    if (key.split('/').some((segment) => segment.startsWith('.'))) continue;
    map.set(key, { body: new Uint8Array(await readFile(file)), contentType });
  }
  return map;
}

/**
 * Look up a dashboard file by URL path ("/assets/app.js"). "/" serves
 * index.html and an extension-less path falls back to the matching .html page
 * ("/sign-in" → sign-in.html). Only files inside public/ with a known content
 * type are served; traversal ("..", backslashes, encoded separators) and
 * missing files give undefined.
 */
export async function loadWebAsset(urlPath: string): Promise<WebAsset | undefined> {
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

  assets ??= loadAll().catch((err: unknown) => {
    assets = undefined;
    throw err;
  });
  const map = await assets;
  return map.get(rel) ?? (path.posix.extname(rel) === '' ? map.get(`${rel}.html`) : undefined);
}
