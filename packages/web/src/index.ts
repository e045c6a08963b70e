import { fileURLToPath } from 'node:url';
import { staticFolder, type WebAsset } from './static-folder.ts';

export type { WebAsset };
export { loadTraceViewerAsset, traceViewerRoot } from './trace-viewer.ts';

/** Absolute path of the folder holding the dashboard's static files. */
export const webRoot: string = fileURLToPath(new URL('../public', import.meta.url));

/**
 * Look up a dashboard file by URL path ("/assets/app.js"). "/" serves index.html and an
 * extension-less path falls back to the matching .html page ("/sign-in" → sign-in.html).
 * Only files inside public/ with a known content type are served; traversal ("..",
 * backslashes, encoded separators) and missing files give undefined.
 */
export const loadWebAsset: (urlPath: string) => Promise<WebAsset | undefined> = staticFolder(() => webRoot, { htmlPages: true });
