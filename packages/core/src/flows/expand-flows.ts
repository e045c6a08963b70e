import { baselineClashes, sameFileNote, type RunnableStep, type Step, type TestDefinition, type UseStep } from '../contracts/steps.ts';
import { flowKey, MAX_EXPANDED_STEPS, MAX_FLOW_DEPTH, type FlowDefinition } from '../contracts/flow.ts';
import type { FieldIssue } from '../errors.ts';
import { bindParameters } from './bind-parameters.ts';

/**
 * Where an expanded step came from: step `step` (1-based) of flow `flow`; `via` names the
 * flows that used it, outermost first, when flows nest. Results, errors and reports show it.
 */
export interface FlowOrigin {
  flow: string;
  step: number;
  via?: string[];
}

/** `at`: the path of the step each expanded step stands for (`steps.3`: a step of the flow that step 3 uses). */
export type Expanded = { ok: true; steps: RunnableStep[]; origins: Array<FlowOrigin | undefined>; at: string[] } | { ok: false; issues: FieldIssue[] };

/**
 * Replaces every `use` step by its flow's steps, with the flow's {{parameters}} bound to
 * the step's `with` values (or the parameters' defaults). What is left are the steps the
 * runner performs; each keeps its origin. Everything else a flow's steps name — the
 * test's parameters, secrets, values saved earlier — stays a {{variable}} resolved when
 * the step runs, as if the steps were written in the test.
 *
 * Problems name the test's step (`steps.3.flow`, `steps.3.with.email`): an unknown flow,
 * a missing required parameter, an unknown parameter, a cycle, nesting deeper than
 * MAX_FLOW_DEPTH. The one function used when a test is saved or loaded (to refuse it)
 * and right before it runs (a flow may have changed or gone since). `within` is the flow
 * whose own steps these are, when a flow is checked: a use of itself is then a cycle.
 */
export function expandSteps(steps: readonly Step[], flows: readonly FlowDefinition[], prefix = 'steps', within?: FlowDefinition): Expanded {
  const byKey = new Map(flows.map((f) => [flowKey(f.name), f]));
  const issues: FieldIssue[] = [];
  const out: RunnableStep[] = [];
  const origins: Array<FlowOrigin | undefined> = [];
  const stepPaths: string[] = [];

  // `chain` is the flows being expanded, outermost first; `at` the test step's path.
  const expandUse = (use: UseStep, at: string, chain: FlowDefinition[], from: string): void => {
    const flow = byKey.get(flowKey(use.flow));
    if (!flow) {
      const known = flows.map((f) => f.name).sort().slice(0, 10);
      issues.push({ path: `${at}.flow`, message: `${from}unknown flow ${JSON.stringify(use.flow)}${known.length ? ` (flows: ${known.join(', ')})` : ' (no flows are known: on a server, the project has none; for svc run, give --flows or put the *.flow.json files in the --tests folder)'}` });
      return;
    }
    const cycleStart = chain.findIndex((f) => flowKey(f.name) === flowKey(flow.name));
    if (cycleStart >= 0) {
      issues.push({ path: `${at}.flow`, message: `flows use each other in a cycle: ${[...chain.slice(cycleStart), flow].map((f) => f.name).join(' → ')}` });
      return;
    }
    if (chain.length + 1 > MAX_FLOW_DEPTH) {
      issues.push({ path: `${at}.flow`, message: `flows nest deeper than ${MAX_FLOW_DEPTH}: ${[...chain, flow].map((f) => f.name).join(' → ')}` });
      return;
    }
    const args = argumentsFor(use, flow, at, from);
    if (!args) return;
    const via = chain.map((f) => f.name);
    flow.steps.forEach((raw, j) => {
      const step = bindParameters(raw, args);
      if (step.type === 'use') expandUse(step, at, [...chain, flow], `${from}flow ${JSON.stringify(flow.name)} step ${j + 1}: `);
      else {
        out.push(step);
        origins.push({ flow: flow.name, step: j + 1, ...(via.length && { via }) });
        stepPaths.push(at);
      }
    });
  };

  const argumentsFor = (use: UseStep, flow: FlowDefinition, at: string, from: string): Record<string, unknown> | undefined => {
    const given = use.with ?? {};
    const declared = new Set(flow.parameters.map((p) => p.name));
    const args: Record<string, unknown> = {};
    let ok = true;
    for (const key of Object.keys(given)) {
      if (declared.has(key)) continue;
      ok = false;
      issues.push({ path: `${at}.with.${key}`, message: `${from}flow ${JSON.stringify(flow.name)} has no parameter ${key}${declared.size ? ` (parameters: ${[...declared].join(', ')})` : ' (it takes none)'}` });
    }
    for (const p of flow.parameters) {
      const value = given[p.name] ?? p.default;
      if (value === undefined) {
        ok = false;
        issues.push({ path: `${at}.with.${p.name}`, message: `${from}required: flow ${JSON.stringify(flow.name)} needs ${p.name} (it has no default)` });
      } else args[p.name] = value;
    }
    return ok ? args : undefined;
  };

  steps.forEach((step, i) => {
    if (step.type === 'use') expandUse(step, `${prefix}.${i}`, within ? [within] : [], '');
    else {
      out.push(step);
      origins.push(undefined);
      stepPaths.push(`${prefix}.${i}`);
    }
  });
  if (!issues.length && out.length > MAX_EXPANDED_STEPS) issues.push({ path: prefix, message: `with its flows expanded the test has ${out.length} steps; at most ${MAX_EXPANDED_STEPS}` });
  return issues.length ? { ok: false, issues } : { ok: true, steps: out, origins, at: stepPaths };
}

/** A test with its flows expanded, and each step's origin (undefined: written in the test). */
export function expandFlows(test: TestDefinition, flows: readonly FlowDefinition[]): { ok: true; definition: TestDefinition; origins: Array<FlowOrigin | undefined> } | { ok: false; issues: FieldIssue[] } {
  if (!test.steps.some((s) => s.type === 'use')) return { ok: true, definition: test, origins: test.steps.map(() => undefined) };
  const expanded = expandSteps(test.steps, flows);
  if (!expanded.ok) return expanded;
  const definition = { ...test, steps: expanded.steps };
  // A flow's visual check, or a flow used twice, may bring a baseline name the test already has.
  const issues = baselineClashes(definition).map((clash): FieldIssue => {
    const where = (position: number) => {
      if (position >= expanded.steps.length) return { path: `assertions.${position - expanded.steps.length}`, what: `assertion ${position - expanded.steps.length + 1}` };
      const origin = expanded.origins[position];
      const path = expanded.at[position];
      return { path: origin ? `${path}.flow` : `${path}.assertion`, what: origin ? `${describeOrigin(origin)} (used by ${path})` : path };
    };
    const later = where(clash.position);
    const earlier = where(clash.earlierPosition);
    return { path: later.path, message: `${later.what}: baseline ${JSON.stringify(clash.name)} is also used by ${earlier.what}${sameFileNote(clash.name, clash.earlierName)}; two visual checks with one baseline would compare with each other's screenshot: name them apart (a flow with a named visual check can be used once per test)` };
  });
  if (issues.length) return { ok: false, issues };
  return { ok: true, definition, origins: expanded.origins };
}

/** "sign in › step 2", or "open admin › sign in › step 2" for a nested flow's step. */
export function describeOrigin(origin: FlowOrigin): string {
  return `${[...(origin.via ?? []), origin.flow].join(' › ')} › step ${origin.step}`;
}

/**
 * A flow's problems before it is saved or loaded: the flows it uses exist, get their
 * parameters, nest at most MAX_FLOW_DEPTH deep and never come back to it (paths
 * `steps.N.flow` of the flow). `flows` are the project's other flows (this one's stored
 * version, if any, is replaced by it).
 */
export function flowIssues(flow: FlowDefinition, flows: readonly FlowDefinition[]): FieldIssue[] {
  const others = flows.filter((f) => flowKey(f.name) !== flowKey(flow.name));
  const checked = expandSteps(flow.steps, [...others, flow], 'steps', flow);
  return checked.ok ? [] : checked.issues;
}
