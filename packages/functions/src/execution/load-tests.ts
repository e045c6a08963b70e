import { readdir, stat } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { z } from 'zod';
import { TestDefinition } from '@svc/core/contracts/steps';
import { toFieldIssues } from '@svc/core/contracts/parse';
import type { SuiteTest } from '@svc/core/execution/run-suite';
import { browserSettingsIssues } from './browser/device-check.ts';
import { expandSteps } from '@svc/core/flows/expand-flows';
import { FLOW_FILE_SUFFIX, loadFlows } from './load-flows.ts';
import { flowKey } from '@svc/core/contracts/flow';
import { stepNumbered } from './step-numbered.ts';
import { readJsonText } from './read-json-file.ts';

export class TestFileError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid test files:\n${problems.map((p) => `  ${p}`).join('\n')}`);
    this.name = 'TestFileError';
  }
}

/**
 * A test (or a flow file) that cannot run as written: `svc run` reports it as a failed
 * test with its problems and runs the others, so one typo still leaves a junit.xml
 * that says what is wrong.
 */
export interface InvalidTest {
  id: string;
  name: string;
  /** The file it is in, as reports group by file. */
  file: string;
  /** The test's type when the file says one; else read from its steps (ui when they say nothing). */
  type: TestDefinition['type'];
  /** `<file>: <field>: <message>` each. */
  problems: string[];
  /** How many valid tests come before it in the files' order (where reports place it). */
  position: number;
  /** Its tags, when the file gives them (for --tag). */
  tags?: string[];
}

export interface LoadedSuite {
  tests: SuiteTest[];
  invalid: InvalidTest[];
}

/** A suite file's envelope: its tests are validated one by one, so one bad test does not hide the rest. */
const SuiteEnvelope = z.strictObject({ $schema: z.string().optional(), name: z.string().max(255).optional(), tests: z.array(z.unknown()).min(1).max(10_000) });

/**
 * Loads tests from a file or a folder (every *.json below it, sorted; *.flow.json files are
 * flows, not tests). Every file is validated before anything runs; each test's problems
 * are listed with file and field. Flows come from the *.flow.json files below the folder
 * and from `flows` (--flows: a file or folder); each test's `use` steps are checked
 * against them (`steps.3.flow`, `steps.3.with.email`), and every test carries the flows,
 * which are expanded right before it runs (run-graph/spec-to-definition.ts).
 *
 * Only a path that holds no test file at all throws; an invalid test or flow file comes
 * back in `invalid`. Folders in `skip` (absolute: svc run's --out, --state-dir and
 * --baselines) are not searched: a folder of tests that holds them would otherwise load the
 * previous run's report.json and state files as tests.
 */
export async function loadTestSuite(path: string, cwd = process.cwd(), options: { flows?: string; skip?: string[] } = {}): Promise<LoadedSuite> {
  const root = resolve(cwd, path);
  const info = await stat(root).catch(() => undefined);
  if (!info) throw new TestFileError([`${path}: no such file or folder`]);
  if (!info.isDirectory() && root.endsWith('.flow.json')) throw new TestFileError([`${path}: a flow file, not a test: give the tests that use it with --tests and it with --flows (or keep it beside them)`]);
  const files = info.isDirectory() ? await jsonFilesUnder(root, new Set((options.skip ?? []).map((d) => resolve(cwd, d)))) : [root];
  if (files.length === 0) throw new TestFileError([`${path}: no .json test files found`]);
  if (options.flows && !(await stat(resolve(cwd, options.flows)).catch(() => undefined))) throw new TestFileError([`${options.flows}: no such file or folder`]);

  const loaded = await loadFlows([...(info.isDirectory() ? [path] : []), ...(options.flows ? [options.flows] : [])], cwd);
  const flows = loaded.flows;
  const brokenFlows = loaded.invalidFiles.filter((f) => f.flowName !== undefined);
  const tests: SuiteTest[] = [];
  const invalid: InvalidTest[] = loaded.invalidFiles.map((f) => ({ id: f.file, name: `flow file ${f.file}`, file: f.file, type: typeOfSteps(f.data), problems: f.problems, position: 0 }));
  /** Test id → the file that has it. */
  const seen = new Map<string, string>();
  for (const file of files) {
    const name = relative(cwd, file) || file;
    let data: unknown;
    try {
      data = await readJsonText(file);
    } catch (err) {
      invalid.push({ id: name, name, file: name, type: 'ui', problems: [`${name}: not valid JSON (${(err as Error).message})`], position: tests.length });
      continue;
    }
    const suite = isObject(data) && 'tests' in data;
    if (suite) {
      const envelope = SuiteEnvelope.safeParse(data);
      if (!envelope.success) {
        invalid.push({ id: name, name, file: name, type: 'ui', problems: problemLines(name, envelope.error, data), position: tests.length });
        continue;
      }
    }
    const entries: unknown[] = suite ? (data as { tests: unknown[] }).tests : [data];
    entries.forEach((entry, i) => {
      const prefix = suite ? `tests.${i}.` : '';
      const id = idOf(entry) ?? (entries.length === 1 ? name : `${name}#${i + 1}`);
      const fail = (problems: string[]) => invalid.push({ id, name: nameOf(entry) ?? id, file: name, type: typeOfSteps(entry), problems, position: tests.length, ...tagsOf(entry) });
      const parsed = TestDefinition.safeParse(entry);
      if (!parsed.success) return fail(problemLines(name, parsed.error, entry, prefix));
      const definition = parsed.data;
      const problems: string[] = [];
      const other = seen.get(id);
      if (other !== undefined) problems.push(`${name}: duplicate test id ${id}${other === name ? ' (twice in this file)' : ` (also in ${other})`}`);
      for (const issue of browserSettingsIssues(definition.browser, `${prefix}browser`)) problems.push(`${name}: ${issue.path}: ${issue.message}`);
      // A flow whose file is invalid is left out; a test that uses it is told so, not that the flow does not exist.
      const broken = definition.steps.flatMap((s, n) => (s.type === 'use' ? brokenFlows.filter((f) => flowKey(f.flowName!) === flowKey(s.flow)).map((f) => `${name}: ${stepNumbered(`${prefix}steps.${n}.flow`)}: flow ${JSON.stringify(s.flow)} is invalid (${f.file}); fix it first`) : []));
      problems.push(...broken);
      const uses = broken.length ? undefined : expandSteps(definition.steps, flows, `${prefix}steps`);
      if (uses && !uses.ok) for (const issue of uses.issues) problems.push(`${name}: ${stepNumbered(issue.path)}: ${issue.message}`);
      if (problems.length) return fail(problems);
      seen.set(id, name);
      tests.push({ id, definition, metadata: { file: name }, ...(definition.steps.some((s) => s.type === 'use') && { flows }) });
    });
  }
  return { tests, invalid };
}

/** Every test, or a TestFileError listing every problem (for `svc export`, which writes nothing from an invalid test). */
export async function loadTests(path: string, cwd = process.cwd(), options: { flows?: string } = {}): Promise<SuiteTest[]> {
  const { tests, invalid } = await loadTestSuite(path, cwd, options);
  if (invalid.length) throw new TestFileError(invalid.flatMap((t) => t.problems));
  return tests;
}

function problemLines(file: string, error: z.ZodError, data: unknown, prefix = ''): string[] {
  return toFieldIssues(error, 'body', data).map((issue) => `${file}: ${stepNumbered(prefix + issue.path) || '(file)'}: ${issue.message}`);
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const idOf = (v: unknown) => (isObject(v) && typeof v.id === 'string' && v.id.length > 0 ? v.id : undefined);
const tagsOf = (v: unknown) => (isObject(v) && Array.isArray(v.tags) ? { tags: v.tags.filter((t): t is string => typeof t === 'string') } : {});
const nameOf = (v: unknown) => (isObject(v) && typeof v.name === 'string' && v.name.length > 0 ? v.name.slice(0, 255) : undefined);

/** The type a test says, or what its steps do (a request: api; SQL: db; else ui). */
function typeOfSteps(v: unknown): TestDefinition['type'] {
  if (!isObject(v)) return 'ui';
  if (v.type === 'ui' || v.type === 'api' || v.type === 'db') return v.type;
  const types = new Set(Array.isArray(v.steps) ? v.steps.map((s) => (isObject(s) ? s.type : undefined)) : []);
  return types.has('request') && !types.has('goto') ? 'api' : types.has('sql') && !types.has('goto') ? 'db' : 'ui';
}

async function jsonFilesUnder(dir: string, skip: Set<string>): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
    const p = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!skip.has(p)) out.push(...(await jsonFilesUnder(p, skip)));
    } else if (entry.name.endsWith('.json') && !entry.name.endsWith(FLOW_FILE_SUFFIX)) out.push(p);
  }
  return out.sort();
}
