#!/usr/bin/env node
// Builds the `svc` CLI into packages/functions/dist: one esbuild bundle of our TypeScript
// (@svc/core, @svc/web and @svc/functions), code-split so the lazy imports of the CLI stay
// lazy. Running it skips tsx's loader thread and its per-module transforms, which cost
// ~0.7 s of every `svc` start. bin/svc.js uses dist only while it is up to date (see
// cli-build.mjs); any edit to a source falls back to the TypeScript sources through tsx.
//   node packages/functions/bin/build.mjs                # build, fail loudly
//   node packages/functions/bin/build.mjs --if-possible  # the root `prepare`: never fails `npm ci`
//   node packages/functions/bin/build.mjs --out <dir>    # elsewhere (tests); svc.js only uses dist
import { createRequire } from 'node:module';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DIST_DIR, ENTRY, REPO_ROOT, inputsOf, manifestOf } from './cli-build.mjs';

const { values: flags } = parseArgs({ options: { 'if-possible': { type: 'boolean' }, out: { type: 'string' } } });
const ifPossible = flags['if-possible'] === true;
const outDir = flags.out ? resolve(flags.out) : DIST_DIR;

// esbuild is a dependency of tsx (a dependency of this package): resolve it from there.
const requireFromTsx = createRequire(createRequire(import.meta.url).resolve('tsx/package.json'));

const fromDist = (file) => {
  const rel = relative(join(outDir, 'cli'), file).split(sep).join('/');
  return rel.startsWith('.') ? rel : `./${rel}`;
};

/**
 * Bundles only our workspace code. Every other package stays external, imported by the
 * exact file esbuild resolved from the importing source: a dependency nested under
 * packages/core/node_modules stays that copy, as it is when running from source.
 */
const externalDependencies = (externals) => ({
  name: 'svc-externals',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, async (args) => {
      if (args.pluginData?.svcResolving || args.path.startsWith('@svc/')) return undefined;
      const r = await build.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, pluginData: { svcResolving: true } });
      if (r.errors.length) return { errors: r.errors };
      if (r.external || !isAbsolute(r.path)) return { path: args.path, external: true };
      externals.add(relative(REPO_ROOT, r.path));
      return { path: fromDist(r.path), external: true };
    });
  },
});

/**
 * Loads our sources (not node_modules). Each file's size and mtime are taken BEFORE it is
 * read: a file edited during the build then no longer matches the manifest, and svc.js
 * falls back to the sources instead of trusting a bundle made from the older text.
 * import.meta.url/dirname/filename keep naming the SOURCE file: code resolves files next to
 * itself (the dashboard's public folder, the run graph's ASL file), which a bundle moves.
 */
const sourceFiles = (stats) => ({
  name: 'svc-source-files',
  setup(build) {
    build.onLoad({ filter: /\.(ts|mts|js|mjs)$/ }, (args) => {
      if (args.path.includes(`${sep}node_modules${sep}`)) return undefined;
      const s = statSync(args.path);
      stats[relative(REPO_ROOT, args.path).split(sep).join('/')] = [s.size, s.mtimeMs];
      const contents = readFileSync(args.path, 'utf8')
        .replace(/\bimport\.meta\.url\b/g, JSON.stringify(pathToFileURL(args.path).href))
        .replace(/\bimport\.meta\.dirname\b/g, JSON.stringify(dirname(args.path)))
        .replace(/\bimport\.meta\.filename\b/g, JSON.stringify(args.path));
      return { contents, loader: /\.m?ts$/.test(args.path) ? 'ts' : 'js' };
    });
  },
});

async function build() {
  // Only ever delete a previous build, never a folder someone pointed --out at by mistake.
  if (existsSync(outDir) && readdirSync(outDir).length > 0 && !existsSync(manifestOf(outDir))) throw new Error(`${outDir} is not empty and holds no CLI build`);
  const esbuild = await import(pathToFileURL(requireFromTsx.resolve('esbuild')).href);
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  const externals = new Set();
  const sourceStats = {};
  const result = await esbuild.build({
    absWorkingDir: REPO_ROOT,
    entryPoints: { main: ENTRY },
    outdir: join(outDir, 'cli'),
    // Chunks sit next to main.js: external imports are paths relative to this one folder.
    chunkNames: '[name]-[hash]',
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    sourcemap: 'linked',
    metafile: true,
    logLevel: 'warning',
    plugins: [externalDependencies(externals), sourceFiles(sourceStats)],
  });
  // Bundled files esbuild loaded itself (e.g. JSON) and the external dependency files.
  const others = [...Object.keys(result.metafile.inputs).filter((p) => !p.includes('node_modules/') && !(p in sourceStats)), ...externals];
  const inputs = { ...inputsOf(others), ...sourceStats };
  writeFileSync(join(outDir, '.gitignore'), '# build output of packages/functions/bin/build.mjs\n*\n');
  writeFileSync(manifestOf(outDir), JSON.stringify({ built_at: new Date().toISOString(), node: process.version, inputs }, null, 1));
  return Object.keys(inputs).length;
}

try {
  const count = await build();
  process.stdout.write(`svc CLI built into ${relative(process.cwd(), outDir) || '.'} (${count} inputs)\n`);
} catch (err) {
  if (existsSync(manifestOf(outDir)) || outDir === DIST_DIR) rmSync(outDir, { recursive: true, force: true });
  if (!ifPossible) throw err;
  // `prepare` must not break `npm ci`: without dist, bin/svc.js runs the sources through tsx.
  process.stderr.write(`svc CLI build skipped (the CLI will run from its TypeScript sources): ${err instanceof Error ? err.message.split('\n')[0] : err}\n`);
}
