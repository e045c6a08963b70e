import { readdir, stat } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { readJsonFile } from './read-json-file.ts';
import { TestFile } from '@svc/core/contracts/steps';
import type { SuiteTest } from '@svc/core/execution/run-suite';
import { browserSettingsIssues } from './browser/device-check.ts';
import { expandSteps } from '@svc/core/flows/expand-flows';
import { FLOW_FILE_SUFFIX, loadFlows } from './load-flows.ts';

export class TestFileError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid test files:\n${problems.map((p) => `  ${p}`).join('\n')}`);
    this.name = 'TestFileError';
  }
}

/**
 * Loads tests from a file or a folder (every *.json below it, sorted; *.flow.json files are
 * flows, not tests). Every file is validated before anything runs; one report lists every
 * problem with file and field. Flows come from the *.flow.json files below the folder and
 * from `flows` (--flows: a file or folder); each test's `use` steps are checked against
 * them (`steps.3.flow`, `steps.3.with.email`), and every test carries the flows, which
 * are expanded right before it runs (run-graph/spec-to-definition.ts).
 */
export async function loadTests(path: string, cwd = process.cwd(), options: { flows?: string } = {}): Promise<SuiteTest[]> {
  const root = resolve(cwd, path);
  const info = await stat(root).catch(() => undefined);
  if (!info) throw new TestFileError([`${path}: no such file or folder`]);
  const files = info.isDirectory() ? await jsonFilesUnder(root) : [root];
  if (files.length === 0) throw new TestFileError([`${path}: no .json test files found`]);

  const loaded = await loadFlows([...(info.isDirectory() ? [path] : []), ...(options.flows ? [options.flows] : [])], cwd);
  const flows = loaded.flows;
  const tests: SuiteTest[] = [];
  const problems: string[] = [...loaded.problems];
  /** Test id → the file that has it. */
  const seen = new Map<string, string>();
  for (const file of files) {
    const name = relative(cwd, file) || file;
    const content = await readJsonFile(file, name, TestFile, problems);
    if (!content) continue;
    const definitions = 'tests' in content ? content.tests : [content];
    definitions.forEach((definition, i) => {
      const id = definition.id ?? (definitions.length === 1 ? name : `${name}#${i + 1}`);
      const other = seen.get(id);
      if (other !== undefined) problems.push(`${name}: duplicate test id ${id}${other === name ? ' (twice in this file)' : ` (also in ${other})`}`);
      const where = definitions.length === 1 && !('tests' in content) ? 'browser' : `tests.${i}.browser`;
      for (const issue of browserSettingsIssues(definition.browser, where)) problems.push(`${name}: ${issue.path}: ${issue.message}`);
      const uses = expandSteps(definition.steps, flows, definitions.length === 1 && !('tests' in content) ? 'steps' : `tests.${i}.steps`);
      if (!uses.ok) for (const issue of uses.issues) problems.push(`${name}: ${issue.path}: ${issue.message}`);
      seen.set(id, name);
      tests.push({ id, definition, metadata: { file: name }, ...(definition.steps.some((s) => s.type === 'use') && { flows }) });
    });
  }
  if (problems.length) throw new TestFileError(problems);
  return tests;
}

async function jsonFilesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
    const p = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await jsonFilesUnder(p)));
    else if (entry.name.endsWith('.json') && !entry.name.endsWith(FLOW_FILE_SUFFIX)) out.push(p);
  }
  return out.sort();
}
