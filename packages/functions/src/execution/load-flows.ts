import { readdir, stat } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { readJsonFile } from './read-json-file.ts';
import { FlowDefinition, flowKey } from '@svc/core/contracts/flow';
import { flowIssues } from '@svc/core/flows/expand-flows';

/** A flow file's suffix: found beside the tests, and never read as a test. */
export const FLOW_FILE_SUFFIX = '.flow.json';

/**
 * Flows for `svc run` / `svc export`: every *.flow.json below the tests' folder, and the
 * file or folder of --flows. Each is validated (the format, a name unique regardless of
 * case, the flows it uses, cycles); problems are returned, not thrown, so one report lists
 * them with the tests' own.
 */
export async function loadFlows(paths: string[], cwd: string): Promise<{ flows: FlowDefinition[]; problems: string[] }> {
  const problems: string[] = [];
  const files = new Set<string>();
  for (const path of paths) {
    const root = resolve(cwd, path);
    const info = await stat(root).catch(() => undefined);
    if (!info) problems.push(`${path}: no such file or folder`);
    else if (info.isDirectory()) for (const f of await flowFilesUnder(root)) files.add(f);
    else files.add(root);
  }
  const flows: FlowDefinition[] = [];
  const where = new Map<string, string>();
  for (const file of [...files].sort()) {
    const name = relative(cwd, file) || file;
    const flow = await readJsonFile(file, name, FlowDefinition, problems);
    if (!flow) continue;
    const earlier = where.get(flowKey(flow.name));
    if (earlier) {
      problems.push(`${name}: name: flow ${JSON.stringify(flow.name)} is already defined in ${earlier} (names are unique regardless of case)`);
      continue;
    }
    where.set(flowKey(flow.name), name);
    flows.push(flow);
  }
  for (const flow of flows) for (const issue of flowIssues(flow, flows)) problems.push(`${where.get(flowKey(flow.name))}: ${issue.path}: ${issue.message}`);
  return { flows, problems };
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
