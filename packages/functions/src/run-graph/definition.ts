import { readFileSync } from 'node:fs';
import { taskResources, type TaskResource } from '@svc/core/run-graph/tasks';

/** asl/run-graph.asl.json: the one definition, deployed to Step Functions and run locally. */
export const definitionFile = new URL('../../../../asl/run-graph.asl.json', import.meta.url);

export type AslState = Record<string, unknown> & { Type: string };
export interface AslDefinition {
  Comment?: string;
  StartAt: string;
  States: Record<string, AslState>;
}

export function loadDefinitionText(): string {
  return readFileSync(definitionFile, 'utf8');
}

/** The definition with each `${resource}` replaced (Lambda ARNs on AWS; placeholders locally). */
export function renderDefinition(resources: Record<TaskResource, string>, text = loadDefinitionText()): AslDefinition {
  const rendered = text.replace(/\$\{([a-z_]+)\}/g, (whole, name: string) => {
    if (!(taskResources as readonly string[]).includes(name)) throw new Error(`unknown task resource ${whole} in the run graph definition`);
    return resources[name as TaskResource];
  });
  return JSON.parse(rendered) as AslDefinition;
}

/** Placeholder ARNs (validation, local runs: every Task is bound in-process). */
export function placeholderResources(region = 'us-east-1', account = '000000000000'): Record<TaskResource, string> {
  return Object.fromEntries(taskResources.map((r) => [r, `arn:aws:lambda:${region}:${account}:function:svc-run-graph-${r.replaceAll('_', '-')}`])) as Record<TaskResource, string>;
}

/** Every Task state (nested ones included) with the resource it runs. */
export function taskStates(text = loadDefinitionText()): Array<{ state: string; resource: TaskResource }> {
  const raw = JSON.parse(text) as AslDefinition;
  const out: Array<{ state: string; resource: TaskResource }> = [];
  const visit = (states: Record<string, AslState>) => {
    for (const [name, s] of Object.entries(states)) {
      if (s.Type === 'Task') {
        const params = s.Parameters as { FunctionName?: string } | undefined;
        const ref = String(params?.FunctionName ?? s.Resource);
        const m = /^\$\{([a-z_]+)\}$/.exec(ref);
        if (!m) throw new Error(`Task state ${name} does not name a run graph resource`);
        out.push({ state: name, resource: m[1] as TaskResource });
      }
      const proc = (s.ItemProcessor ?? s.Iterator) as AslDefinition | undefined;
      if (proc) visit(proc.States);
      for (const b of (s.Branches as AslDefinition[] | undefined) ?? []) visit(b.States);
    }
  };
  visit(raw.States);
  return out;
}
