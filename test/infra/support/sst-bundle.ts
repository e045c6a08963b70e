import { spawn } from 'node:child_process';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { fromRoot } from '../sst-doubles.ts';

/**
 * Bundles a function's handler as SST's Node runtime does (pkg/runtime/node/build.go):
 * ESM, no splitting, the bundle at the handler's path inside the package, the function's
 * `nodejs.install` packages left external and present in the package's node_modules
 * (here, links to the repository's). Returns the bundle's file.
 */
export async function bundleAsSst(o: { handler: string; packageDir: string; install?: string[] }): Promise<string> {
  const handlerPath = o.handler.slice(0, o.handler.lastIndexOf('.'));
  const handlerFile = path.join(o.packageDir, `${handlerPath}.mjs`);
  const installed = o.install ?? [];
  const result = await build({
    entryPoints: [fromRoot(`${handlerPath}.ts`)],
    outfile: handlerFile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'esnext',
    mainFields: ['module', 'main'],
    keepNames: true,
    external: ['sharp', 'pg-native', ...installed],
    banner: {
      js: [
        `import { createRequire as topLevelCreateRequire } from 'module';`,
        `const require = topLevelCreateRequire(import.meta.url);`,
        `import { fileURLToPath as topLevelFileUrlToPath, URL as topLevelURL } from "url"`,
        `const __filename = topLevelFileUrlToPath(import.meta.url)`,
        `const __dirname = topLevelFileUrlToPath(new topLevelURL(".", import.meta.url))`,
      ].join('\n'),
    },
    logLevel: 'silent',
  });
  if (result.errors.length) throw new Error(`bundling ${o.handler} failed: ${result.errors.map((e) => e.text).join('; ')}`);
  for (const name of installed) {
    const target = path.join(o.packageDir, 'node_modules', name);
    await mkdir(path.dirname(target), { recursive: true });
    await symlink(fromRoot('node_modules', name), target, 'dir');
  }
  return handlerFile;
}

export type ContainerOutcome = { ok: true; value: any } | { ok: false; error: string };

/**
 * Loads a bundle in a fresh Node process (a cold container) with only the given
 * environment, as Lambda's, and calls `exported(event)`. A thrown error is the outcome's
 * `error`, as the runtime would report it.
 */
export async function invokeInContainer(o: { handlerFile: string; exported: string; event: unknown; env: Record<string, string | undefined>; cwd: string }): Promise<ContainerOutcome> {
  const driver = path.join(path.dirname(o.handlerFile), `driver-${process.pid}.mjs`);
  await writeFile(
    driver,
    `
const mod = await import(${JSON.stringify(pathToFileURL(o.handlerFile).href)});
let out;
try {
  out = { ok: true, value: await mod[process.argv[2]](JSON.parse(process.argv[3])) };
} catch (error) {
  out = { ok: false, error: String(error && error.message || error) };
}
process.stdout.write('\\n@@result@@' + JSON.stringify(out));
process.exit(0);
`,
  );
  const env = Object.fromEntries(Object.entries({ PATH: process.env.PATH ?? '', ...o.env }).filter((e): e is [string, string] => e[1] !== undefined));
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [driver, o.exported, JSON.stringify(o.event)], { cwd: o.cwd, env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      const at = stdout.lastIndexOf('\n@@result@@');
      if (code !== 0 || at < 0) return reject(new Error(`container exited ${code}: ${stdout}\n${stderr}`));
      resolve(JSON.parse(stdout.slice(at + '\n@@result@@'.length)) as ContainerOutcome);
    });
  });
}
