import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { staticFolder, type WebAsset } from './static-folder.ts';

/**
 * Where Playwright's trace viewer (a static web app: HTML, scripts and a service worker
 * that reads the trace zip in the browser) is on this machine. In a function package it
 * lies beside the dashboard's public/ (infra/api.ts copies it there, as `../trace-viewer`
 * from the bundle); otherwise it is the one inside the installed playwright-core, the same
 * version that recorded the traces. Undefined when neither is there.
 */
export function traceViewerRoot(): string | undefined {
  const packaged = fileURLToPath(new URL('../trace-viewer', import.meta.url));
  if (existsSync(path.join(packaged, 'index.html'))) return packaged;
  try {
    const installed = path.join(path.dirname(createRequire(import.meta.url).resolve('playwright-core/package.json')), 'lib', 'vite', 'traceViewer');
    return existsSync(path.join(installed, 'index.html')) ? installed : undefined;
  } catch {
    return undefined;
  }
}

/** A trace viewer file by its path below /trace-viewer/ ("/" is index.html). */
export const loadTraceViewerAsset: (urlPath: string) => Promise<WebAsset | undefined> = staticFolder(traceViewerRoot);
