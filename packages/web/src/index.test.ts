import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadTraceViewerAsset, loadWebAsset, traceViewerRoot, webRoot } from './index.ts';

const text = (body: Uint8Array) => new TextDecoder().decode(body);

describe('loadWebAsset', () => {
  it('points webRoot at the public folder', () => {
    expect(path.isAbsolute(webRoot)).toBe(true);
    expect(path.basename(webRoot)).toBe('public');
  });

  it('serves files with their content types', async () => {
    const js = await loadWebAsset('/assets/app.js');
    expect(js?.contentType).toBe('text/javascript; charset=utf-8');
    expect(text(js!.body)).toBe(await readFile(path.join(webRoot, 'assets/app.js'), 'utf8'));
    expect((await loadWebAsset('/assets/styles.css'))?.contentType).toBe('text/css; charset=utf-8');
    expect((await loadWebAsset('assets/favicon.svg'))?.contentType).toBe('image/svg+xml');
    expect((await loadWebAsset('/assets/api.js?v=1'))?.contentType).toBe('text/javascript; charset=utf-8');
  });

  it('maps / to index.html and extension-less paths to pages', async () => {
    const index = await loadWebAsset('/');
    expect(index?.contentType).toBe('text/html; charset=utf-8');
    expect(text(index!.body)).toContain('data-testid="projects-list"');
    expect(text((await loadWebAsset('/sign-in'))!.body)).toContain('data-testid="sign-in-form"');
    expect(await loadWebAsset('/sign-in.html')).toEqual(await loadWebAsset('/sign-in'));
  });

  it('returns undefined for missing files and anything outside public/', async () => {
    for (const p of [
      '/nope.js',
      '/assets/nope.css',
      '/../package.json',
      '/assets/../../package.json',
      '/%2e%2e/package.json',
      '/assets%2f..%2f..%2fpackage.json',
      '/..%5cpackage.json',
      '/assets\\app.js',
      '//etc/passwd',
      '/%E0%A4%A',
      '/assets/app.js%00.css',
      '/.env',
    ]) {
      expect(await loadWebAsset(p), p).toBeUndefined();
    }
  });
});

describe('loadTraceViewerAsset', () => {
  it("serves the installed playwright-core's trace viewer", async () => {
    const root = traceViewerRoot()!;
    expect(root.split(path.sep).slice(-4)).toEqual(['playwright-core', 'lib', 'vite', 'traceViewer']);
    const index = await loadTraceViewerAsset('/');
    expect(index?.contentType).toBe('text/html; charset=utf-8');
    expect(text(index!.body)).toBe(await readFile(path.join(root, 'index.html'), 'utf8'));
    expect((await loadTraceViewerAsset('/sw.bundle.js'))?.contentType).toBe('text/javascript; charset=utf-8');
    expect((await loadTraceViewerAsset('/manifest.webmanifest'))?.contentType).toBe('application/manifest+json');
  });

  it('serves nothing outside its folder, and no dashboard pages', async () => {
    for (const p of ['/../package.json', '/%2e%2e/package.json', '/..%2f..%2fpackage.json', '/nope.js', '/sign-in', '/assets/app.js']) {
      expect(await loadTraceViewerAsset(p), p).toBeUndefined();
    }
  });
});
