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

// ---------------------------------------------------------------- stored flows (API)

/** A project's flow as the API answers it. */
export const FlowSchema = z.object({
  id: z.uuid(),
  project_id: z.uuid(),
  name: z.string(),
  description: z.string().nullable(),
  parameters: z.array(FlowParameter),
  steps: z.array(Step),
  created_by: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type FlowRecord = z.output<typeof FlowSchema>;

export const FlowCreateInput = z.strictObject({ project_id: z.uuid().describe('Project the flow belongs to'), ...FlowFields }).superRefine(uniqueParameters);
export type FlowCreateInput = z.output<typeof FlowCreateInput>;

export const FlowUpdateInput = z
  .strictObject({
    name: FlowName.optional(),
    description: z.string().max(10_000).nullable().optional(),
    parameters: z.array(FlowParameter).max(100).optional().describe('Replaced as a whole'),
    steps: z.array(Step).min(1).max(500).optional().describe('Replaced as a whole'),
  })
  .superRefine((f, ctx) => f.parameters && uniqueParameters({ parameters: f.parameters }, ctx))
  .refine((v) => Object.values(v).some((x) => x !== undefined), { message: 'at least one field is required', when: (p) => p.issues.length === 0 });
export type FlowUpdateInput = z.output<typeof FlowUpdateInput>;

export const FlowListQuery = z.strictObject({ project_id: z.uuid().describe("Project whose flows to list") });

/** As expansion reads a stored flow. */
export const asDefinition = (f: Pick<FlowRecord, 'name' | 'description' | 'parameters' | 'steps'>): FlowDefinition => ({ name: f.name, ...(f.description !== null && f.description !== undefined && { description: f.description }), parameters: f.parameters, steps: f.steps });
