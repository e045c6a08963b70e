import { parseArgs } from 'node:util';
import { writeFile, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { ProgressEvent, SuiteTest } from '@svc/core/execution/run-suite';
import { safeHttpExchange } from '../net/metadata-safe-fetch.ts';
import type { SqlDriver } from '@svc/core/execution/types';
import { StepHealer, defaultHealingPolicy } from '@svc/core/execution/step-healer';
import { quarantinedFailures } from '@svc/core/execution/totals';
import { loadTestSuite, TestFileError, type InvalidTest } from '../execution/load-tests.ts';
import { FsArtifacts } from '../execution/fs-artifacts.ts';
import { FileFingerprintStore } from '../execution/file-fingerprints.ts';
import { FileBaselineStore } from '../execution/file-baselines.ts';
import { baselineModes, type BaselineMode } from '@svc/core/visual/baseline-store';
import { fileHealingKnowledge } from '../execution/file-healing-knowledge.ts';
import { limits } from '@svc/core/contracts/limits';
import { selectInvalidTests, selectTests } from '../execution/select-tests.ts';
import { progressPrinter } from './progress.ts';
import { usageError } from './usage-error.ts';
import { unwritableFolder } from './writable-folder.ts';
import { freshArtifactFolder } from './fresh-artifacts.ts';

export const RUN_HELP = `Usage: svc run --url <app> --tests <file|dir> [options]
       svc run --url <app> --discover [--max-pages N] [options]
       svc run --resume <run-id> [options]

Runs tests against an app without a server and writes reports. The run goes through the
run graph (the same state machine as the server's runs; --workers is its Map
concurrency), checkpointed in --state-dir: an interrupted run (Ctrl-C, a kill) is
continued with --resume, without running its finished tests again.

Options:
  --url <url>            Base URL of the app under test (relative URLs in tests resolve against it)
  --tests <file|dir>     A test file, or a folder of *.json test files (format: docs/test-format.md);
                         *.flow.json files below the folder are flows (shared steps), not tests;
                         the --out, --state-dir and --baselines folders in it are not searched
  --flows <file|dir>     Flows (*.flow.json) the tests' "use" steps may name, besides those beside the tests
  --discover             Crawl the app, generate tests from what was found (a smoke test per
                         page, a test per sign-in/form/create-item/navigation flow), write them
                         to <out>/generated-tests and run them (with --tests: run both)
  --max-pages <n>        Pages --discover may visit, 1-500 (default 20)
  --workers <n>          Tests run in parallel (default 1)
  --reporter <list>      Any of html,json,md,junit,pdf (default html,json,md,junit); pdf writes
                         report.pdf, the HTML report printed by Chromium (A4, every section open)
  --out <dir>            Where reports and artifacts go (default ./svc-report)
  --baselines <dir>      Where visual baselines are kept, one PNG per test and name; commit it (default ./svc-baselines)
  --update-baselines <m> missing (default: record a baseline where none exists), all (also replace
                         those that differ, after a wanted UI change) or none (a missing one fails)
  --state-dir <dir>      Where element fingerprints (for self-healing) and run checkpoints are kept (default ./.svc)
  --resume <run-id>      Continue an interrupted run from its last checkpoint (its tests, URL, --out and --baselines folders, healing and trace settings are kept)
  --trace <mode>         on-failure (default: keep a Playwright trace of each failed UI test) or off
  --no-heal              Do not heal broken locators
  --heal-threshold <x>   Confidence needed to apply a heal, 0.5–1 (default 0.8)
  --grep <regex>         Run only tests whose name matches (a parameterised test's cases by "name [set]")
  --tag <tag>            Run only tests with this tag (repeat it, or separate tags with commas)
  --retries <n>          Run a failed test again up to n times, 0-5 (default 0); one that passes on a
                         retry counts as passed and is reported as flaky
  --env-file <file>      KEY=value lines: project environment (e.g. DATABASE_URL for SQL steps)
  --chromium <path>      Use this Chromium instead of the bundled one (env SVC_CHROMIUM_PATH)

Models (optional, docs/intelligence.md "Models"): with SVC_LLM_PROVIDERS set, a model is
asked to choose among the top candidates when a heal's ranking is ambiguous (it can only
confirm the ranker's pick just below the threshold), and with SVC_LLM_VISION=true a
broken click/fill/hover locator falls back to the model's coordinates on a screenshot.
Usage is recorded in <state-dir>/llm-usage and summed up at the end of the run.

Self-healing: when a locator finds nothing, svc ranks the page's elements against the
element's fingerprint from the last run that found it (kept in --state-dir) and re-runs
the step with a replacement locator if one is confident enough and passes. Such tests
are reported as healed, with the old and new locator.

Secrets: {{secrets.NAME}} in a test reads the environment variable SVC_SECRET_NAME;
secret values are masked in reports. Exit code: 0 when every test passed, 1 otherwise
(also when a test file is invalid: it is reported as a failed test, and the others run,
or when a report asked for could not be written), 2 for bad usage (or no test file at all).
`;

const FORMATS = ['html', 'json', 'md', 'junit', 'pdf'] as const;
type Format = (typeof FORMATS)[number];
/**
 * pdf is asked for, not written by default: it launches Chromium even for a run without
 * UI tests and lays the whole report out once more, while the HTML report has the same content.
 */
const DEFAULT_FORMATS: readonly Format[] = ['html', 'json', 'md', 'junit'];
/** A CI runner is not a shared server: a long report may take longer to print than the API allows (60 s). */
const PDF_TIMEOUT_MS = 300_000;

export async function runCommand(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args,
      options: {
        url: { type: 'string' }, tests: { type: 'string' }, flows: { type: 'string' }, workers: { type: 'string' }, reporter: { type: 'string' },
        out: { type: 'string' }, 'state-dir': { type: 'string' }, baselines: { type: 'string' }, 'update-baselines': { type: 'string' }, 'no-heal': { type: 'boolean' }, trace: { type: 'string' }, 'heal-threshold': { type: 'string' }, retries: { type: 'string' }, grep: { type: 'string' }, tag: { type: 'string', multiple: true }, 'env-file': { type: 'string' }, chromium: { type: 'string' }, resume: { type: 'string' }, discover: { type: 'boolean' }, 'max-pages': { type: 'string' }, help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    }));
  } catch (err) {
    return usage((err as Error).message);
  }
  if (values.help) {
    process.stdout.write(RUN_HELP);
    return 0;
  }
  const resume = values.resume;
  if (resume === undefined && values.flows && !values.tests) return usage('--flows goes with --tests: flows are steps the tests use');
  if (resume !== undefined && (values.url || values.tests || values.workers || values.flows)) return usage('--resume continues a run with its own --url, --tests and --workers; do not give them again');
  if (resume === undefined && !values.url) return usage('--url is required');
  if (values.url && !/^https?:\/\//.test(values.url)) return usage(`--url must be an http(s) URL, got ${values.url}`);
  if (resume === undefined && !values.tests && !values.discover) return usage('--tests (or --discover) is required');
  if (resume !== undefined && values.discover) return usage('--resume continues a run with its own tests; do not give --discover again');
  if (resume !== undefined && values['update-baselines'] !== undefined) return usage('--resume continues a run with the baseline mode it started with; do not give --update-baselines again');
  if (values['max-pages'] !== undefined && !values.discover) return usage('--max-pages goes with --discover: it bounds the pages discovery visits');
  const maxPages = Number(values['max-pages'] ?? 20);
  if (!Number.isInteger(maxPages) || maxPages < 1 || maxPages > 500) return usage('--max-pages must be a whole number from 1 to 500');
  const workers = Number(values.workers ?? 1);
  if (!Number.isInteger(workers) || workers < 1 || workers > 32) return usage('--workers must be a whole number from 1 to 32');
  if (resume !== undefined && (values.trace !== undefined || values['no-heal'] !== undefined || values['heal-threshold'] !== undefined)) return usage('--resume continues a run with the healing and trace settings it started with; do not give --no-heal, --heal-threshold or --trace again');
  let trace = values.trace ?? 'on-failure';
  if (trace !== 'on-failure' && trace !== 'off') return usage('--trace must be on-failure or off');
  const baselineMode = values['update-baselines'] ?? 'missing';
  if (!(baselineModes as readonly string[]).includes(baselineMode)) return usage(`--update-baselines must be one of ${baselineModes.join(', ')}`);
  if (resume !== undefined && (values.grep !== undefined || values.tag !== undefined)) return usage('--resume continues a run with the tests it started with; do not give --grep or --tag again');
  let grep: RegExp | undefined;
  try {
    grep = values.grep !== undefined ? new RegExp(values.grep) : undefined;
  } catch (err) {
    return usage(`--grep is not a valid regular expression: ${(err as Error).message}`);
  }
  const tags = values.tag?.flatMap((t) => t.split(',')).map((t) => t.trim()).filter(Boolean);
  if (resume !== undefined && values.retries !== undefined) return usage('--resume continues a run with the retries it started with; do not give --retries again');
  const retries = Number(values.retries ?? 0);
  if (!Number.isInteger(retries) || retries < 0 || retries > limits.MAX_TEST_RETRIES) return usage(`--retries must be a whole number from 0 to ${limits.MAX_TEST_RETRIES}`);
  let threshold = Number(values['heal-threshold'] ?? defaultHealingPolicy.threshold);
  let healing = !values['no-heal'];
  if (!(threshold >= 0.5 && threshold <= 1)) return usage('--heal-threshold must be a number from 0.5 to 1');
  const formats = (values.reporter ?? DEFAULT_FORMATS.join(',')).split(',').map((s) => s.trim()).filter(Boolean);
  const unknown = formats.filter((f) => !FORMATS.includes(f as Format));
  if (unknown.length) return usage(`unknown reporter ${unknown.join(', ')}; use any of ${FORMATS.join(',')}`);
  // An empty --reporter (an unset "$REPORTERS") would write nothing while saying where the reports are.
  if (!formats.length) return usage(`--reporter names no reporter; use any of ${FORMATS.join(',')}`);

  let tests: SuiteTest[] = [];
  // Tests that cannot run as written: reported as failed with their problems while the others run.
  let invalid: InvalidTest[] = [];
  try {
    // Not svc's own folders, when they are inside the tests' folder (`--tests .`): the last run's report.json is no test.
    const skip = [values.out ?? 'svc-report', values['state-dir'] ?? '.svc', values.baselines ?? 'svc-baselines'].map((d) => resolve(d));
    if (values.tests) ({ tests, invalid } = await loadTestSuite(values.tests, undefined, { flows: values.flows, skip }));
  } catch (err) {
    if (err instanceof TestFileError) {
      process.stderr.write(`svc run: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
  if (grep || tags?.length) {
    const loaded = tests;
    tests = selectTests(loaded, { grep, tags });
    invalid = selectInvalidTests(invalid, loaded, tests, { grep, tags });
    if (loaded.length && !tests.length && !invalid.length) {
      process.stderr.write(`svc run: no test matches ${[grep && `--grep ${grep.source}`, tags?.length && `--tag ${tags.join(',')}`].filter(Boolean).join(' and ')} (of ${loaded.length} loaded)\n`);
      return 2;
    }
  }

  const environment: Record<string, string> = { ...(env as Record<string, string>) };
  if (values['env-file']) {
    try {
      Object.assign(environment, parseEnvFile(await readFile(values['env-file'], 'utf8')));
    } catch (err) {
      return usage(`cannot read --env-file: ${(err as Error).message}`);
    }
  }
  const secrets = Object.fromEntries(Object.entries(environment).filter(([k]) => k.startsWith('SVC_SECRET_')).map(([k, v]) => [k.slice('SVC_SECRET_'.length), v]));

  const stateDir = resolve(values['state-dir'] ?? '.svc');
  // A resumed run writes where it began: its first part's screenshots and traces are there.
  let out = resolve(values.out ?? 'svc-report');
  // And compares with the baselines it began with: the default folder (an empty one, say) would
  // record the resumed tests' screenshots as new baselines and pass them (found by QA).
  let baselinesDir = resolve(values.baselines ?? 'svc-baselines');
  if (resume !== undefined) {
    const { keptRunOptions, ResumeError } = await import('../run-graph/cli-run.ts');
    let began: Awaited<ReturnType<typeof keptRunOptions>>;
    try {
      began = await keptRunOptions(stateDir, resume);
    } catch (err) {
      if (err instanceof ResumeError) return usage(err.message);
      throw err;
    }
    if (began.out && values.out !== undefined && out !== began.out) return usage(`--resume writes its reports where the run began (${began.out}, with its first part's screenshots); do not give another --out`);
    if (began.baselines && values.baselines !== undefined && baselinesDir !== began.baselines) return usage(`--resume compares with the baselines the run began with (${began.baselines}); do not give another --baselines`);
    out = began.out ?? out;
    baselinesDir = began.baselines ?? baselinesDir;
    if (began.settings) ({ heal: healing, heal_threshold: threshold, trace } = began.settings);
  }
  // Checked before anything runs: a folder that cannot take the reports is bad usage, not a crash after the tests.
  const outProblem = await unwritableFolder(out);
  if (outProblem) return usage(`--out ${out} cannot hold the reports: ${outProblem}`);
  const artifacts = new FsArtifacts(await freshArtifactFolder(out, resume !== undefined));
  let driver: Promise<import('../execution/browser/playwright-driver.ts').PlaywrightDriver> | undefined;
  const executablePath = values.chromium ?? env.SVC_CHROMIUM_PATH;
  // Drivers load on first use: an API-only run never loads Playwright or the SQL clients.
  let sqlDriver: Promise<SqlDriver> | undefined;
  const sql: SqlDriver = {
    query: async (...args) => (await (sqlDriver ??= import('../execution/sql/sql-driver.ts').then((m) => m.createSqlDriver()))).query(...args),
    close: async () => {
      if (sqlDriver) await (await sqlDriver).close();
    },
  };
  const controller = new AbortController();
  const onSignal = () => controller.abort();
  // Ctrl-C, and SIGTERM: what a CI job's cancel or timeout, `timeout` and Kubernetes send.
  // Either stops the run where it is (its queries and browser too) and still writes the
  // reports; a second signal ends the process outright.
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  let models: import('../llm/cli-models.ts').CliModels | undefined;
  // Every way out of the command, early or not, gives back the same things.
  const release = async () => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await sql.close();
    if (driver) await (await driver).close();
    await models?.close();
  };
  // Patterns, 7-day cache and memory of past heals, kept in the state dir (file-healing-knowledge.ts).
  // SVC_LLM_*: model choice among ambiguous heal candidates and (SVC_LLM_VISION) the vision fallback; usage kept in the state dir.
  try {
    if (env.SVC_LLM_PROVIDERS || env.SVC_LLM_PROVIDER) models = await (await import('../llm/cli-models.ts')).cliModels(env, stateDir);
  } catch (err) {
    await release();
    return usage((err as Error).message);
  }
  const openBrowser = () => (driver ??= import('../execution/browser/playwright-driver.ts').then((m) => m.createPlaywrightDriver({ executablePath, vision: models?.vision, prewarm: 1, handleSignals: false })));
  if (values.discover) {
    try {
      const { discoverTests } = await import('./discover-tests.ts');
      process.stdout.write(`discovering ${values.url} (up to ${maxPages} pages)…\n`);
      const found = await discoverTests(await openBrowser(), { url: values.url!, maxPages, secrets, out, signal: controller.signal });
      const { pages, skipped: notVisited, flows } = found.crawl;
      process.stdout.write(`discovered ${pages.length} page${pages.length === 1 ? '' : 's'} and ${flows.length} flow${flows.length === 1 ? '' : 's'}` +
        (notVisited.length ? ` (${notVisited.length} link${notVisited.length === 1 ? '' : 's'} not visited)` : '') +
        `; generated ${found.tests.length} test${found.tests.length === 1 ? '' : 's'} in ${found.folder}\n`);
      for (const s of found.skipped) process.stdout.write(`  not generated: ${s.name}: ${s.reason}\n`);
      const taken = new Set(tests.map((t) => t.id));
      tests = [...tests, ...found.tests.filter((t) => !taken.has(t.id))];
    } catch (err) {
      await release();
      process.stderr.write(`svc run: discovery failed: ${(err as Error).message.split('\n')[0]}\n`);
      return 1;
    }
    if (!tests.length) {
      await release();
      process.stderr.write('svc run: discovery found nothing to test\n');
      return 1;
    }
  }
  const print = progressPrinter(process.stdout, tests.length);
  for (const t of invalid) process.stdout.write(`${process.stdout.isTTY ? '\x1b[31m✗\x1b[0m' : 'FAIL'} ${t.name} — not run, the test is invalid:\n${t.problems.map((p) => `    ${p}`).join('\n')}\n`);
  const healer = new StepHealer({ ...defaultHealingPolicy, enabled: healing, threshold }, fileHealingKnowledge(stateDir), models?.chooser);

  try {
    // Chromium starts before the run graph loads (~100 ms of module loading), which then
    // overlaps with the browser's own start-up; an API-only run never launches it.
    if (tests.some((t) => t.definition.type === 'ui')) {
      const browser = await openBrowser().catch(() => undefined);
      void browser?.warmUp();
    }
    // The run graph (and its ASL interpreter) loads only when a run starts: --help stays fast.
    const graphRun = await import('../run-graph/cli-run.ts');
    const runtime: import('../run-graph/cli-run.ts').GraphSuiteRuntime = {
      browser: openBrowser,
      sql,
      http: safeHttpExchange,
      artifacts,
      traceOnFailure: trace === 'on-failure',
      stepHealer: healer,
      ...(models?.extract && { extractModel: models.extract }),
      fingerprints: new FileFingerprintStore(stateDir),
      baselines: new FileBaselineStore(baselinesDir),
      baselineMode: baselineMode as BaselineMode,
      environment,
      secrets,
      stateDir,
      signal: controller.signal,
      onProgress: (e: ProgressEvent) => print(e),
      // Said first, so even a run killed outright can be continued.
      // The run's id, which its reports carry; --resume takes it (or, for a run kept before run ids were, the thread's).
      onThread: (threadId: string, runId?: string) => void process.stdout.write(`run ${runId ?? threadId} (if it is interrupted: svc run --resume ${runId ?? threadId})\n`),
    };
    let outcome;
    try {
      const name = values.tests ?? `discovered ${values.url}`;
      outcome = resume !== undefined
        ? await graphRun.resumeSuiteThroughGraph(resume, { ...runtime, stateDir })
        : tests.length === 0
          ? { summary: (await import('../run-graph/invalid-tests.ts')).invalidOnlySummary(name, values.url!, invalid), status: 'completed' as const, threadId: '' }
          : await graphRun.runSuiteThroughGraph({ ...runtime, name, tests, workers, retries, baseUrl: values.url!, invalid, out, baselinesDir, settings: { heal: healing, heal_threshold: threshold, trace: trace as 'on-failure' | 'off' } });
    } catch (err) {
      if (err instanceof graphRun.ResumeError) return usage(err.message);
      throw err;
    }
    const { summary } = outcome;
    if (outcome.status === 'failed') process.stderr.write(`svc run: the run failed: ${outcome.error}\n`);
    if (outcome.status === 'interrupted') process.stderr.write(`svc run: interrupted; continue with: svc run --resume ${summary.run_id || outcome.threadId} --state-dir ${stateDir}\n`);
    const { renderReports, embeddedArtifactKeys } = await import('@svc/core/reporting/index');
    const embed = new Map<string, Uint8Array>();
    // Screenshots and the images of visual comparisons (baseline, actual, diff).
    for (const key of embeddedArtifactKeys(summary)) {
      const bytes = await artifacts.read(key);
      if (bytes) embed.set(key, bytes);
    }
    const textFormats = formats.filter((f): f is Exclude<Format, 'pdf'> => f !== 'pdf');
    // A report that cannot be written (a folder where the file should be) is said, and the others are still written.
    let reportFailed = false;
    for (const report of renderReports(summary, textFormats, { embed: (key: string) => embed.get(key) })) {
      try {
        await writeFile(join(out, report.filename), report.body);
      } catch (err) {
        reportFailed = true;
        process.stderr.write(`svc run: could not write ${report.filename}: ${(err as Error).message}\n`);
      }
    }
    let pdfFailed = false;
    if (formats.includes('pdf')) {
      // A browser of its own: the run graph closes the run's browser when the run ends.
      const { chromiumPdfPrinter } = await import('../reporting/chromium-pdf.ts');
      const { renderPdfReport } = await import('@svc/core/reporting/pdf-report');
      const { createPlaywrightDriver } = await import('../execution/browser/playwright-driver.ts');
      const printerBrowser = await createPlaywrightDriver({ executablePath, handleSignals: false });
      try {
        const print = chromiumPdfPrinter(async () => printerBrowser, { timeoutMs: PDF_TIMEOUT_MS });
        await writeFile(join(out, 'report.pdf'), await renderPdfReport(summary, print, { embed: (key: string) => embed.get(key) }));
      } catch (err) {
        pdfFailed = true;
        process.stderr.write(`svc run: could not write report.pdf: ${(err as Error).message.split('\n')[0]}\n`);
      } finally {
        await printerBrowser.close();
      }
    }
    const quarantined = quarantinedFailures(summary.results);
    process.stdout.write(
      `\n${summary.passed + summary.healed}/${summary.total} passed` +
        (summary.healed ? ` (${summary.healed} healed)` : '') +
        (summary.failed ? `, ${summary.failed} failed${quarantined ? ` (${quarantined} quarantined, not failing the run)` : ''}` : '') +
        (summary.skipped ? `, ${summary.skipped} skipped` : '') +
        ` in ${(summary.duration_ms / 1000).toFixed(1)}s — reports in ${out}\n`,
    );
    const aiUsage = models?.summary();
    if (aiUsage) process.stdout.write(`${aiUsage}\n`);
    // A report that was asked for and not written fails the command, as a failed test does.
    // A quarantined test's failure is reported but does not fail the command.
    return summary.failed - quarantined === 0 && summary.skipped === 0 && !pdfFailed && !reportFailed ? 0 : 1;
  } finally {
    await release();
  }
}

const usage = (message: string): number => usageError('run', message);

/**
 * KEY=value per line: # comment lines, and an inline ` # comment` after an unquoted value
 * (a # after whitespace ends the value; `COLOR=#fff` keeps its #); a quoted value is taken
 * as quoted, # and all, and a comment after the closing quote is ignored.
 */
export function parseEnvFile(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split(/\r?\n/)) {
    const m = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*?)\s*$/.exec(line);
    if (!m || line.trim().startsWith('#')) continue;
    const quoted = /^(['"])(.*?)\1(\s+#.*|\s*)$/.exec(m[2]);
    out[m[1]] = quoted ? quoted[2] : m[2].replace(/\s+#.*$/, '');
  }
  return out;
}
