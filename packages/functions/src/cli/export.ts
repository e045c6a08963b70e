import { parseArgs } from 'node:util';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { exportPlaywrightProject } from '@svc/core/export/playwright';
import { loadTests, TestFileError } from '../execution/load-tests.ts';
import { usageError } from './usage-error.ts';

export const EXPORT_HELP = `Usage: svc export --format playwright --tests <file|dir> [--flows <file|dir>] [--out <dir>] [--url <app>]

Writes a Playwright Test project: playwright.config.ts and one tests/<name>.spec.ts per
test. Run it with \`npx playwright test --config <out>/playwright.config.ts\`; it uses
the Chromium in SVC_CHROMIUM_PATH and the app in SVC_BASE_URL (or --url).
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
  // loadTests checked every use step; the export writes each flow's steps where it is used.
  const flows = tests.find((t) => t.flows)?.flows ?? [];
  const files = exportPlaywrightProject(tests.map((t) => t.definition), { baseUrl: values.url, flows });
  for (const file of files) {
    const path = join(out, file.path);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, file.content);
  }
  process.stdout.write(`wrote ${files.length} files to ${out}\n`);
  return 0;
}

const usage = (message: string): number => usageError('export', message);
