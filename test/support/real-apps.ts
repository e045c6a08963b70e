import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Real third-party applications, installed from the npm registry into a git-ignored
 * folder and served on 127.0.0.1, so discovery, generation and benchmarks run against
 * code we did not write. Their code is never committed.
 */
export type RealAppName = 'todomvc' | 'json-server' | 'petstore';
export const realAppNames: readonly RealAppName[] = ['todomvc', 'json-server', 'petstore'];

export const repoRoot = resolve(fileURLToPath(new URL('../..', import.meta.url)));
export const realAppsDir = join(repoRoot, '.real-apps');
const modulesDir = join(realAppsDir, 'node_modules');

/** Exact versions named by issue #6. */
export const realAppPackages: Record<string, string> = {
  todomvc: '0.1.1',
  'json-server': '0.17.4',
  '@apidevtools/swagger-express-middleware': '4.0.2',
};

function installedVersion(pkg: string): string | undefined {
  const file = join(modulesDir, pkg, 'package.json');
  if (!existsSync(file)) return undefined;
  return (JSON.parse(readFileSync(file, 'utf8')) as { version?: string }).version;
}

export function realAppsInstalled(): boolean {
  return Object.entries(realAppPackages).every(([pkg, version]) => installedVersion(pkg) === version);
}

/** Idempotent: does nothing when every package is already present at its version. */
export function installRealApps(log: (line: string) => void = () => {}): void {
  if (realAppsInstalled()) {
    log(`real apps already installed in ${realAppsDir}`);
    return;
  }
  mkdirSync(realAppsDir, { recursive: true });
  // A private package.json keeps npm from walking up into the monorepo's workspaces.
  const manifest = join(realAppsDir, 'package.json');
  if (!existsSync(manifest)) writeFileSync(manifest, JSON.stringify({ name: 'svc-real-apps', private: true }, null, 2) + '\n');
  const specs = Object.entries(realAppPackages).map(([pkg, version]) => `${pkg}@${version}`);
  log(`installing ${specs.join(', ')} into ${realAppsDir}`);
  // --ignore-scripts: we only serve their files, no install hooks from third parties run.
  execFileSync('npm', ['install', '--prefix', realAppsDir, '--no-save', '--ignore-scripts', '--no-audit', '--no-fund', ...specs], {
    stdio: ['ignore', 'inherit', 'inherit'],
    cwd: realAppsDir,
  });
  if (!realAppsInstalled()) throw new Error(`real apps install incomplete in ${realAppsDir}`);
}

export interface RealApp {
  name: RealAppName;
  /** Where a user (or the crawler) starts. */
  url: string;
  /** scheme://host:port of the server. */
  origin: string;
  close(): Promise<void>;
}

export interface RealAppOptions {
  /** todomvc only: which shipped implementation to serve (default vanillajs, no build step needed). */
  implementation?: string;
  /** json-server only: the database to serve (default bench/intelligence/json-server-db.json). */
  db?: Record<string, unknown>;
}

function requireReal(): NodeJS.Require {
  if (!realAppsInstalled()) {
    throw new Error(`real apps are not installed in ${realAppsDir}: run "npm run apps:install" first`);
  }
  return createRequire(join(modulesDir, 'noop.js'));
}

function listen(app: { listen: (port: number, host: string, cb: () => void) => Server }, name: RealAppName, path = '/'): Promise<RealApp> {
  return new Promise((resolveApp, reject) => {
    const server = app.listen(0, '127.0.0.1', () => {
      const address = server.address();
      if (!address || typeof address === 'string') return reject(new Error(`${name}: no TCP address`));
      const origin = `http://127.0.0.1:${address.port}`;
      resolveApp({
        name,
        url: origin + path,
        origin,
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections?.();
            server.close(() => done());
          }),
      });
    });
    server.on('error', reject);
  });
}

function startTodoMvc(opts: RealAppOptions): Promise<RealApp> {
  const req = requireReal();
  const express = req('express');
  const implementation = opts.implementation ?? 'vanillajs';
  const root = join(modulesDir, 'todomvc', 'examples', implementation);
  if (!/^[\w-]+$/.test(implementation) || !existsSync(join(root, 'index.html'))) {
    throw new Error(`todomvc: no implementation "${implementation}" with an index.html in ${join(modulesDir, 'todomvc', 'examples')}`);
  }
  // The package's own server.js serves the whole marketing site; this launcher serves a
  // single implementation at / so the app under test is exactly one TodoMVC.
  const app = express();
  app.use(express.static(root));
  return listen(app, 'todomvc');
}

function startJsonServer(opts: RealAppOptions): Promise<RealApp> {
  const req = requireReal();
  const jsonServer = req('json-server');
  const db = opts.db ?? JSON.parse(readFileSync(join(repoRoot, 'bench', 'intelligence', 'json-server-db.json'), 'utf8'));
  const app = jsonServer.create();
  app.use(jsonServer.defaults({ logger: false }));
  // An object (not a file name) keeps the database in memory: runs never write to disk.
  app.use(jsonServer.router(structuredClone(db)));
  return listen(app, 'json-server');
}

function startPetStore(): Promise<RealApp> {
  const req = requireReal();
  const createMiddleware = req('@apidevtools/swagger-express-middleware');
  const express = req('express');
  const swaggerFile = join(modulesDir, '@apidevtools', 'swagger-express-middleware', 'samples', 'PetStore.yaml');
  const app = express();
  // Mirrors samples/sample1.js (all middleware, default options), on a free port.
  return new Promise((resolveApp, reject) => {
    createMiddleware(swaggerFile, app, (err: Error | null, middleware: any) => {
      if (err) return reject(err);
      app.use(middleware.metadata(), middleware.CORS(), middleware.files(), middleware.parseRequest(), middleware.validateRequest(), middleware.mock());
      // The sample logs every 404 stack to the console; an error handler keeps output quiet.
      app.use((error: { status?: number; message?: string }, _req: unknown, res: any, _next: unknown) => {
        res.status(error.status ?? 500).type('html').send(`<html><body><h1>${error.status ?? 500} Error</h1></body></html>`);
      });
      listen(app, 'petstore').then(resolveApp, reject);
    });
  });
}

/** Serves one real app on 127.0.0.1 with a free port. Throws a clear error when not installed. */
export function startRealApp(name: RealAppName, opts: RealAppOptions = {}): Promise<RealApp> {
  switch (name) {
    case 'todomvc':
      return startTodoMvc(opts);
    case 'json-server':
      return startJsonServer(opts);
    case 'petstore':
      return startPetStore();
    default:
      throw new Error(`unknown real app "${String(name)}"; expected one of ${realAppNames.join(', ')}`);
  }
}
