import { z } from 'zod';

/** Most steps (tool calls) one invocation may take; each is a model turn and a real API call. */
export const AGENT_MAX_STEPS = 20;

export const AgentInvokeInput = z.strictObject({
  goal: z.string().trim().min(1).max(4000).describe('What to achieve, in plain language: "run the checkout tests of Shop and tell me why any failed"'),
  project_id: z.uuid().optional().describe('The project the goal is about, when it is about one (told to the model; the tools still take it explicitly)'),
  max_steps: z.number().int().min(1).max(AGENT_MAX_STEPS).default(8).describe(`Most tool calls before the agent must answer (1–${AGENT_MAX_STEPS}, default 8)`),
  read_only: z.boolean().default(false).describe('Offer only tools that read (no runs started, no tests written or healed)'),
  tools: z.array(z.string().regex(/^svc_[a-z_]+$/)).min(1).max(60).optional().describe('Offer only these tools (names as in the MCP tool list)'),
});
export type AgentInvokeInput = z.output<typeof AgentInvokeInput>;

export const AgentStep = z.object({
  n: z.number().int().describe('1-based'),
  tool: z.string().nullable().describe('The tool called; null when the model\'s reply named no valid tool'),
  why: z.string().nullable().describe('The model\'s reason for the call, as it gave it'),
  arguments: z.record(z.string(), z.unknown()),
  is_error: z.boolean().describe('The call failed (the API\'s error, e.g. VALIDATION_FAILED naming the field) or the reply was unusable'),
  result: z.string().describe('What the tool answered (or why the reply was refused), cut to 4,000 characters'),
  truncated: z.boolean(),
  duration_ms: z.number().int(),
});
export type AgentStep = z.output<typeof AgentStep>;

export const AgentInvokeResponse = z.object({
  goal: z.string(),
  status: z.enum(['answered', 'step_limit', 'time_limit', 'model_error']).describe('answered: the model gave its answer; step_limit / time_limit: stopped before it did (the answer is what it said when asked to conclude, or null); model_error: the model failed after some steps had run'),
  answer: z.string().nullable(),
  steps: z.array(AgentStep).describe('Every tool call, in order: what was really done, whatever the answer says'),
  tools_offered: z.number().int(),
  usage: z.object({ model_calls: z.number().int(), input_tokens: z.number().int(), output_tokens: z.number().int(), cost_usd: z.number(), models: z.array(z.string()) }),
  error: z.object({ code: z.string(), message: z.string() }).optional(),
});
export type AgentInvokeResponse = z.output<typeof AgentInvokeResponse>;
