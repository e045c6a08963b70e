import { parseArgs } from 'node:util';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { exportPlaywrightProject } from '@svc/core/export/playwright';
import { loadTests, TestFileError } from '../execution/load-tests.ts';
import { usageError } from './usage-error.ts';
import { unwritableFolder } from './writable-folder.ts';

export const EXPORT_HELP = `Usage: svc export --format playwright --tests <file|dir> [--flows <file|dir>] [--out <dir>] [--url <app>]

Writes a Playwright Test project: playwright.config.ts, a package.json naming
@playwright/test (kept if there is one) and one tests/<name>.spec.ts per test; spec files
an earlier export wrote for tests no longer exported are removed. Run it with
\`cd <out> && npm install && npx playwright test\`; it uses the Chromium in
SVC_CHROMIUM_PATH and the app in SVC_BASE_URL (or --url).
Database steps are not exportable; such tests are emitted as skipped, with the reason.
Flows (*.flow.json beside the tests, and --flows) are written inline where a test uses them.
`;

export async function exportCommand(args: string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args,
      options: { format: { type: 'string' }, tests: { type: 'string' }, flows: { type: 'string' }, out: { type: 'string' }, url: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
      strict: true,
    }));
  } catch (err) {
    return usage((err as Error).message);
  }
  if (values.help) {
    process.stdout.write(EXPORT_HELP);
    return 0;
  }
  if (values.format !== 'playwright') return usage(values.format ? `unknown format ${values.format}; only playwright is supported` : '--format is required');
  if (!values.tests) return usage('--tests is required');
  let tests;
  try {
    tests = await loadTests(values.tests, undefined, { flows: values.flows });
  } catch (err) {
    if (err instanceof TestFileError) {
      process.stderr.write(`svc export: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
  const out = resolve(values.out ?? 'playwright-export');
  const outProblem = await unwritableFolder(out);
  if (outProblem) return usage(`--out ${values.out ?? 'playwright-export'}: cannot write there: ${outProblem}`);
  // loadTests checked every use step; the export writes each flow's steps where it is used.
  const flows = tests.find((t) => t.flows)?.flows ?? [];
  const files = exportPlaywrightProject(tests.map((t) => t.definition), { baseUrl: values.url, flows });
  const manifest = await readFile(join(out, 'package.json'), 'utf8').then(() => undefined, () => ({ path: 'package.json', content: packageJson() }));
  try {
    for (const file of manifest ? [...files, manifest] : files) {
      const path = join(out, file.path);
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, file.content);
    }
  } catch (err) {
    process.stderr.write(`svc export: could not write to ${out}: ${(err as Error).message}\n`);
    return 1;
  }
  const removed = await removeStaleSpecs(join(out, 'tests'), new Set(files.map((f) => f.path.replace(/^tests\//, ''))));
  process.stdout.write(`wrote ${files.length + (manifest ? 1 : 0)} files to ${out}${removed.length ? `; removed ${removed.length} spec file(s) an earlier export wrote for tests no longer exported (${removed.join(', ')})` : ''}\n`);
  return 0;
}

/** Spec files an earlier svc export wrote (they say so on their first line) that this export did not: they would run stale tests. */
async function removeStaleSpecs(dir: string, written: Set<string>): Promise<string[]> {
  const removed: string[] = [];
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    if (!name.endsWith('.spec.ts') || written.has(name)) continue;
    const head = await readFile(join(dir, name), 'utf8').then((t) => t.slice(0, 200), () => '');
    if (!head.startsWith('// Exported by svc from the test')) continue; // someone's own spec: kept
    await rm(join(dir, name), { force: true });
    removed.push(name);
  }
  return removed;
}

/** The exported project's package.json: Playwright Test at the version svc drives Chromium with. */
function packageJson(): string {
  let version = '1';
  try {
    version = (createRequire(import.meta.url)('playwright-core/package.json') as { version: string }).version;
  } catch {
    // playwright-core not resolvable from here: any 1.x will do
  }
  return `${JSON.stringify({ name: 'svc-playwright-export', private: true, scripts: { test: 'playwright test' }, devDependencies: { '@playwright/test': `^${version}` } }, null, 2)}\n`;
}

const usage = (message: string): number => usageError('export', message);
