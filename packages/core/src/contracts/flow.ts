import { z } from 'zod';
import { FlowArgument, FlowName, Step } from './steps.ts';

/**
 * A flow: a named, parameterised list of steps kept once per project ("sign in", "add to
 * cart") that tests run with a `use` step (docs/test-format.md, Flows). Checks go in
 * `assert` steps: a flow has no trailing assertions of its own.
 */

/** How deep `use` steps may nest: a test's use is level 1, a flow using another level 2 … */
export const MAX_FLOW_DEPTH = 5;
/** A test's steps after every flow is expanded, at most (a test itself has at most 500). */
export const MAX_EXPANDED_STEPS = 1_000;

const ParameterName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'letters, digits and _, not starting with a digit').refine((n) => n !== 'secrets' && n !== 'env', { message: 'secrets and env are reserved: {{secrets.X}} and {{env.X}} read the project environment' });

export const FlowParameter = z.strictObject({
  name: ParameterName.describe('Read inside the flow as {{name}}'),
  default: FlowArgument.optional().describe('Value when a use step does not give one; a parameter without a default is required'),
  description: z.string().max(1000).optional(),
});
export type FlowParameter = z.output<typeof FlowParameter>;

const FlowFields = {
  name: FlowName,
  description: z.string().max(10_000).optional(),
  parameters: z.array(FlowParameter).max(100).default([]).describe('What a use step passes in ("with"); {{name}} inside the flow'),
  steps: z.array(Step).min(1).max(500).describe('Run in order where the flow is used'),
};

function uniqueParameters(f: { parameters: FlowParameter[] }, ctx: z.RefinementCtx): void {
  const seen = new Set<string>();
  f.parameters.forEach((p, i) => {
    if (seen.has(p.name)) ctx.addIssue({ code: 'custom', path: ['parameters', i, 'name'], message: `parameter ${p.name} is declared twice` });
    seen.add(p.name);
  });
}

/** A flow as written: in a *.flow.json file or a POST /api/flows body (with project_id). */
const FlowDefinitionFields = z.strictObject({ $schema: z.string().optional(), ...FlowFields });
export const FlowDefinition = FlowDefinitionFields.superRefine(uniqueParameters);
export type FlowDefinition = z.output<typeof FlowDefinition>;
/** The flow file's shape for its JSON Schema (refinements have no JSON Schema form). */
export const FlowFileShape = FlowDefinitionFields;

/** How a flow is named in lookups: names are unique per project regardless of case and outer spaces. */
export const flowKey = (name: string): string => name.trim().toLowerCase();
