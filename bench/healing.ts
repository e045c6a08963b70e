/**
 * Healing benchmark (npm run bench:healing). Converts the dev set to the `svc heal rank`
 * contract, runs the real CLI as a child process, scores its output against the answers,
 * and adds leave-one-site-out cross-validated figures (fit on 39 sites, evaluate on the
 * held-out one, for every site) computed in-process. Prints a table and the JSON, writes
 * bench/results/healing.json.
 */
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { DEFAULT_MODEL } from '../packages/core/src/healing/model-constants.ts';
import { crossValidate, loadDataset, metrics, prepareDev, THRESHOLD } from './healing-lib.ts';
import { crossValidateRuntime, runtimeExamples, runtimeMetrics } from './healing-runtime-lib.ts';
import { loadRuntimeSet } from './healing-runtime-set.ts';

const root = join(import.meta.dirname, '..');
const bin = join(root, 'node_modules', '.bin', 'svc');

interface Line {
  id: string;
  ranked: { index: number; score: number; confidence: number }[];
  error?: string;
}

async function runCli(input: string): Promise<{ lines: Line[]; ms: number }> {
  const started = performance.now();
  const child = spawn(bin, ['heal', 'rank', '--input', input, '--top', '10'], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
  const lines: Line[] = [];
  for await (const line of createInterface({ input: child.stdout })) if (line.trim()) lines.push(JSON.parse(line) as Line);
  const code = await new Promise<number | null>((resolve) => (child.exitCode !== null ? resolve(child.exitCode) : child.once('exit', resolve)));
  if (code !== 0) throw new Error(`svc heal rank exited ${code}`);
  return { lines, ms: performance.now() - started };
}

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;

const ds = await loadDataset();
const dir = await mkdtemp(join(tmpdir(), 'svc-bench-healing-'));
let cli;
try {
  const input = join(dir, 'input.json');
  await writeFile(input, JSON.stringify(ds.input));
  cli = await runCli(input);
} finally {
  await rm(dir, { recursive: true, force: true });
}

const byId = new Map(cli.lines.map((l) => [l.id, l]));
const results = ds.input.cases.map((c) => {
  const line = byId.get(c.id);
  const answer = ds.answers.get(c.id)!;
  const rank = line ? line.ranked.findIndex((r) => r.index === answer) : -1;
  return { rank: rank < 0 ? Infinity : rank, topConfidence: line?.ranked[0]?.confidence ?? 0, topCorrect: line?.ranked[0]?.index === answer };
});
const inSample = metrics(results);
const msPerCase = cli.ms / ds.input.cases.length;

process.stderr.write('cross-validating (leave one site out)…\n');
const cvStart = performance.now();
const cases = prepareDev(ds);
const cv = metrics(crossValidate(cases, (site, i, n) => process.stderr.write(`  fold ${i + 1}/${n} (${site})\r`)));
process.stderr.write(`\n  done in ${((performance.now() - cvStart) / 1000).toFixed(0)} s\n`);

// Runtime set: real-driver fingerprints of generated redesigns (bench/healing-runtime-capture.ts).
// The ranking is the committed one (fitted on the dev set only); the calibration is
// cross-validated leaving one base page out (all its variants together).
process.stderr.write('runtime set: ranking and cross-validating the runtime calibration (leave one base page out)…\n');
const runtime = runtimeExamples(await loadRuntimeSet(), DEFAULT_MODEL);
const rtIn = runtimeMetrics(runtime, DEFAULT_MODEL.runtimeCalibration ?? DEFAULT_MODEL.calibration);
const rtCv = crossValidateRuntime(runtime).metrics;

const report = {
  cases: inSample.cases,
  top1: inSample.top1,
  top3: inSample.top3,
  autoApplyPrecision: inSample.autoApplyPrecision,
  autoApplyCoverage: inSample.autoApplyCoverage,
  msPerCase: Math.round(msPerCase * 100) / 100,
  threshold: THRESHOLD,
  model: DEFAULT_MODEL.version,
  crossValidated: {
    method: 'leave-one-site-out (40 folds: fit on 39 sites, evaluate on the held-out one)',
    top1: cv.top1,
    top3: cv.top3,
    autoApplyPrecision: cv.autoApplyPrecision,
    autoApplyCoverage: cv.autoApplyCoverage,
    removedAutoApplyRate: cv.removedAutoApplyRate,
  },
  runtime: {
    about: 'real-driver fingerprints of generated redesigns of 12 base pages (bench/healing-runtime-set.json.gz); runtime calibration',
    inSample: rtIn,
    crossValidated: { method: 'leave-one-base-page-out (12 folds)', ...rtCv },
  },
};

const rows: [string, string, string][] = [
  ['metric', 'CLI (committed model, in-sample)', 'cross-validated (LOSO)'],
  ['cases', String(inSample.cases), String(cv.cases)],
  ['top-1', pct(inSample.top1), pct(cv.top1)],
  ['top-3', pct(inSample.top3), pct(cv.top3)],
  [`auto-apply precision (conf ≥ ${THRESHOLD})`, pct(inSample.autoApplyPrecision), pct(cv.autoApplyPrecision)],
  [`auto-apply coverage (conf ≥ ${THRESHOLD})`, pct(inSample.autoApplyCoverage), pct(cv.autoApplyCoverage)],
  ['auto-heals when the element was removed', '', pct(cv.removedAutoApplyRate)],
  ['ms per case (whole CLI run / cases)', msPerCase.toFixed(2), ''],
  ['runtime set: cases (+ removed elements)', `${rtIn.cases} (+${rtIn.removedCases})`, `${rtCv.cases} (+${rtCv.removedCases})`],
  ['runtime set: top-1', pct(rtIn.top1), pct(rtCv.top1)],
  [`runtime set: auto-apply precision (conf ≥ ${THRESHOLD}, removed included)`, pct(rtIn.autoApplyPrecision), pct(rtCv.autoApplyPrecision)],
  [`runtime set: auto-apply coverage`, pct(rtIn.autoApplyCoverage), pct(rtCv.autoApplyCoverage)],
  ['runtime set: auto-heals of removed elements', pct(rtIn.removedAutoApplyRate), pct(rtCv.removedAutoApplyRate)],
  ['runtime set: auto-heals with the right element taken off', pct(rtIn.answerRemovedAutoApplyRate), pct(rtCv.answerRemovedAutoApplyRate)],
];
const widths = [0, 1, 2].map((k) => Math.max(...rows.map((r) => r[k].length)));
for (const [i, r] of rows.entries()) {
  console.log(r.map((c, k) => c.padEnd(widths[k])).join(' | '));
  if (i === 0) console.log(widths.map((w) => '-'.repeat(w)).join('-|-'));
}
console.log(JSON.stringify(report, null, 2));
await mkdir(join(root, 'bench', 'results'), { recursive: true });
await writeFile(join(root, 'bench', 'results', 'healing.json'), `${JSON.stringify(report, null, 2)}\n`);
