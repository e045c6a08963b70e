// Plain-language stories → tests with NO model, run once in Chromium with the product's
// runner. Used by `npm run bench:intelligence` (storySuccess) and runnable alone:
//   tsx bench/intelligence-stories.ts   (starts the three real apps itself)
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parsePlainLanguage, toTestDefinition } from '../packages/core/src/intelligence/generation/plain-language.ts';
import { TestDefinition } from '../packages/core/src/contracts/steps.ts';
import { runTest } from '../packages/core/src/execution/run-test.ts';
import { httpExchange } from '../packages/core/src/execution/api/http-exchange.ts';
import type { UiDriver } from '../packages/core/src/execution/types.ts';
import { FsArtifacts } from '../packages/functions/src/execution/fs-artifacts.ts';

export const storiesDir = join(import.meta.dirname, 'intelligence', 'stories');

export interface StoryOutcome {
  id: string;
  app: string;
  passed: boolean;
  reason?: string;
  ms: number;
}

/** Story files are named <app>-<nn>-<what>.txt; the app is the longest known prefix. */
function appOf(file: string, apps: string[]): string | undefined {
  return apps.filter((a) => file.startsWith(`${a}-`)).sort((a, b) => b.length - a.length)[0];
}

export async function measureStories(
  apps: Record<string, { url: string }>,
  opts: { driver?: UiDriver; only?: RegExp; onStory?: (o: StoryOutcome) => void } = {},
): Promise<{ stories: number; passed: number; failures: Array<{ id: string; reason: string }>; outcomes: StoryOutcome[] }> {
  const files = (await readdir(storiesDir)).filter((f) => f.endsWith('.txt') && (!opts.only || opts.only.test(f))).sort();
  const artifactsDir = await mkdtemp(join(tmpdir(), 'svc-stories-'));
  let driver = opts.driver;
  const ownDriver = !driver;
  const ui = async () => (driver ??= await (await import('../packages/functions/src/execution/browser/playwright-driver.ts')).createPlaywrightDriver({ executablePath: process.env.SVC_CHROMIUM_PATH }));
  const outcomes: StoryOutcome[] = [];
  try {
    for (const file of files) {
      const id = file.replace(/\.txt$/, '');
      const app = appOf(file, Object.keys(apps));
      const t0 = performance.now();
      const done = (passed: boolean, reason?: string) => {
        const o: StoryOutcome = { id, app: app ?? '?', passed, ...(reason && { reason }), ms: Math.round(performance.now() - t0) };
        outcomes.push(o);
        opts.onStory?.(o);
      };
      if (!app) {
        done(false, `no app named by the file name (expected one of ${Object.keys(apps).join(', ')})`);
        continue;
      }
      const parsed = parsePlainLanguage(await readFile(join(storiesDir, file), 'utf8'));
      if (parsed.not_understood.length) {
        done(false, `not understood: ${parsed.not_understood.map((n) => `line ${n.line} "${n.text}" (closest: ${n.closest})`).join('; ')}`);
        continue;
      }
      const checked = TestDefinition.safeParse(toTestDefinition(parsed, { name: id }));
      if (!checked.success) {
        done(false, `invalid test: ${checked.error.message}`);
        continue;
      }
      const result = await runTest(id, checked.data, { ui, http: httpExchange, artifacts: new FsArtifacts(join(artifactsDir, id)), baseUrl: apps[app].url, environment: {}, secrets: {}, traceOnFailure: false });
      done(result.status === 'passed', result.status === 'passed' ? undefined : `${result.failure_kind ?? 'failed'}: ${result.error_message ?? 'failed'}`);
    }
  } finally {
    if (ownDriver) await driver?.close();
    await rm(artifactsDir, { recursive: true, force: true });
  }
  const failures = outcomes.filter((o) => !o.passed).map((o) => ({ id: o.id, reason: o.reason ?? 'failed' }));
  return { stories: outcomes.length, passed: outcomes.length - failures.length, failures, outcomes };
}

async function main() {
  const { startRealApp, realAppNames } = await import('../test/support/real-apps.ts');
  const started = await Promise.all(realAppNames.map((n) => startRealApp(n)));
  try {
    const apps = Object.fromEntries(started.map((a) => [a.name, { url: a.url }]));
    const only = process.argv[2] ? new RegExp(process.argv[2]) : undefined;
    const r = await measureStories(apps, { only, onStory: (o) => console.log(`${o.passed ? 'PASS' : 'FAIL'} ${o.id} (${o.ms} ms)${o.reason ? `\n     ${o.reason}` : ''}`) });
    console.log(`\nstories ${r.stories}, passed ${r.passed}, success ${(r.passed / Math.max(1, r.stories)).toFixed(3)}`);
  } finally {
    await Promise.all(started.map((a) => a.close()));
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
