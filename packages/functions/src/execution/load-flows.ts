import { readdir, readFile, stat } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { readJsonFile } from './read-json-file.ts';
import { FlowDefinition, flowKey } from '@svc/core/contracts/flow';
import { flowIssues } from '@svc/core/flows/expand-flows';

/** A flow file's suffix: found beside the tests, and never read as a test. */
export const FLOW_FILE_SUFFIX = '.flow.json';

/** A flow file that cannot be used as written, with what it says (its name, when it has one). */
export interface InvalidFlowFile {
  file: string;
  /** `<file>: <field>: <message>` each. */
  problems: string[];
  /** The file's content, when it is JSON. */
  data?: unknown;
  /** The flow's name as the file gives it (a test that uses it is told the flow is invalid, not missing). */
  flowName?: string;
}

/**
 * Flows for `svc run` / `svc export`: every *.flow.json below the tests' folder, and the
 * file or folder of --flows. Each is validated (the format, a name unique regardless of
 * case, the flows it uses, cycles); an invalid file is returned with its problems, not
 * thrown, and its flow is left out, so tests that do not use it still run.
 */
export async function loadFlows(paths: string[], cwd: string): Promise<{ flows: FlowDefinition[]; invalidFiles: InvalidFlowFile[] }> {
  const invalidFiles: InvalidFlowFile[] = [];
  const files = new Set<string>();
  for (const path of paths) {
    const root = resolve(cwd, path);
    const info = await stat(root).catch(() => undefined);
    if (!info) invalidFiles.push({ file: path, problems: [`${path}: no such file or folder`] });
    else if (info.isDirectory()) for (const f of await flowFilesUnder(root)) files.add(f);
    else files.add(root);
  }
  const loaded: FlowDefinition[] = [];
  const where = new Map<string, string>();
  for (const file of [...files].sort()) {
    const name = relative(cwd, file) || file;
    const problems: string[] = [];
    const flow = await readJsonFile(file, name, FlowDefinition, problems);
    if (!flow) {
      const data = await readFile(file, 'utf8').then((t) => JSON.parse(t) as unknown).catch(() => undefined);
      const flowName = typeof (data as { name?: unknown })?.name === 'string' ? (data as { name: string }).name : undefined;
      invalidFiles.push({ file: name, problems, data, ...(flowName && { flowName }) });
      continue;
    }
    const earlier = where.get(flowKey(flow.name));
    if (earlier) {
      invalidFiles.push({ file: name, problems: [`${name}: name: flow ${JSON.stringify(flow.name)} is already defined in ${earlier} (names are unique regardless of case)`], data: flow });
      continue;
    }
    where.set(flowKey(flow.name), name);
    loaded.push(flow);
  }
  const flows: FlowDefinition[] = [];
  for (const flow of loaded) {
    const file = where.get(flowKey(flow.name))!;
    const issues = flowIssues(flow, loaded);
    if (issues.length) invalidFiles.push({ file, problems: issues.map((issue) => `${file}: ${issue.path}: ${issue.message}`), data: flow, flowName: flow.name });
    else flows.push(flow);
  }
  return { flows, invalidFiles };
}

async function flowFilesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
    const p = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await flowFilesUnder(p)));
    else if (entry.name.endsWith(FLOW_FILE_SUFFIX)) out.push(p);
  }
  return out;
}
