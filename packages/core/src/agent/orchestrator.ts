import type { AgentInvokeInput, AgentInvokeResponse, AgentStep } from '../contracts/agent.ts';
import { AppError, validationFailed } from '../errors.ts';
import { LlmError, noModel } from '../llm/errors.ts';
import type { LlmCallContext, LlmClient, LlmMessage, LlmResult } from '../llm/types.ts';
import { toolSignature } from './tool-signature.ts';

/** A tool the agent may call: one of the gateway's tools, which are svc's own API routes. */
export interface AgentTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  readOnly: boolean;
}

export interface AgentDeps {
  llm?: LlmClient;
  /** Who pays for the model calls (budgets, ai_usage). */
  context: LlmCallContext;
  tools: AgentTool[];
  /** Calls a tool as the caller (the MCP gateway in process, with the caller's credential). */
  callTool(name: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<{ isError: boolean; text: string }>;
  now?: () => number;
  /** Wall-clock budget: no new step starts after it (default 10 minutes). */
  timeLimitMs?: number;
}

/** What a step keeps of a tool's answer in the response. */
const RESULT_CHARS = 4_000;
/** What the model reads of a tool's answer: enough for a run's status or a page of results. */
const FED_BACK_CHARS = 6_000;
const DEFAULT_TIME_LIMIT_MS = 10 * 60_000;

type Reply = { kind: 'tool'; tool: string; why: string | null; args: Record<string, unknown> } | { kind: 'answer'; answer: string } | { kind: 'invalid'; problem: string };

/**
 * svc_agent: a model reaches a goal by calling svc's own tools one at a time — the same
 * tools an AI assistant gets over MCP, forwarded with the caller's credential, so roles,
 * tenant isolation, validation and the audit log apply to every step — and then answers.
 * The steps it took are returned as they happened: the answer is the model's, the steps
 * are the record. Without a configured model it fails with NO_MODEL before doing anything.
 */
export async function runAgent(deps: AgentDeps, input: AgentInvokeInput, signal?: AbortSignal): Promise<AgentInvokeResponse> {
  if (!deps.llm?.configured) throw noModel();
  const llm = deps.llm;
  const now = deps.now ?? Date.now;
  const deadline = now() + (deps.timeLimitMs ?? DEFAULT_TIME_LIMIT_MS);
  const tools = offeredTools(deps.tools, input);
  const byName = new Map(tools.map((t) => [t.name, t]));
  const steps: AgentStep[] = [];
  const usage = { model_calls: 0, input_tokens: 0, output_tokens: 0, cost_usd: 0, models: [] as string[] };
  const messages: LlmMessage[] = [{ role: 'user', content: goalMessage(input) }];
  const system = systemPrompt(tools, input.max_steps);

  const ask = async (): Promise<Reply> => {
    const res: LlmResult = await llm.complete({ type: 'agent_step', needsReasoning: true }, { system, messages, json: true, maxTokens: 2_000, temperature: 0, cache: true }, deps.context);
    usage.model_calls++;
    usage.input_tokens += res.inputTokens;
    usage.output_tokens += res.outputTokens;
    usage.cost_usd = Math.round((usage.cost_usd + res.costUsd) * 1e6) / 1e6;
    if (!usage.models.includes(res.model)) usage.models.push(res.model);
    messages.push({ role: 'assistant', content: res.text });
    return parseReply(res.text, byName);
  };
  const finish = (status: AgentInvokeResponse['status'], answer: string | null, error?: { code: string; message: string }): AgentInvokeResponse => ({
    goal: input.goal, status, answer, steps, tools_offered: tools.length, usage, ...(error && { error }),
  });

  let stopped: 'step_limit' | 'time_limit' = 'step_limit';
  try {
    while (steps.length < input.max_steps) {
      if (now() > deadline) {
        stopped = 'time_limit';
        break;
      }
      signal?.throwIfAborted();
      const reply = await ask();
      if (reply.kind === 'answer') return finish('answered', reply.answer);
      const started = now();
      const n = steps.length + 1;
      if (reply.kind === 'invalid') {
        steps.push({ n, tool: null, why: null, arguments: {}, is_error: true, result: reply.problem, truncated: false, duration_ms: 0 });
        messages.push({ role: 'user', content: `Step ${n} of ${input.max_steps} was not done: ${reply.problem}` });
        continue;
      }
      const outcome = await deps.callTool(reply.tool, reply.args, signal).catch((err: unknown) => ({ isError: true, text: `the call failed: ${(err as Error).message}` }));
      steps.push({
        n, tool: reply.tool, why: reply.why, arguments: reply.args, is_error: outcome.isError,
        result: outcome.text.slice(0, RESULT_CHARS), truncated: outcome.text.length > RESULT_CHARS, duration_ms: Math.max(0, Math.round(now() - started)),
      });
      const fed = outcome.text.length > FED_BACK_CHARS ? `${outcome.text.slice(0, FED_BACK_CHARS)}\n… (${outcome.text.length - FED_BACK_CHARS} more characters not shown)` : outcome.text;
      messages.push({ role: 'user', content: `Result of step ${n} of ${input.max_steps}, ${reply.tool}${outcome.isError ? ' (an ERROR)' : ''}:\n${fed}` });
    }
    // Out of steps or time: the model is asked once for its answer from what it has.
    messages.push({ role: 'user', content: `${stopped === 'time_limit' ? 'The time is up' : `You have used all ${input.max_steps} tool calls`}. Call no more tools: answer now with {"answer": "…"} from what the results above show, and say what is left undone.` });
    const last = await ask();
    return finish(stopped, last.kind === 'answer' ? last.answer : null);
  } catch (err) {
    // Before any step the request simply failed (NO_MODEL, a budget, a provider down): the
    // caller gets the error. After some, those steps happened — runs may have started — and
    // the caller must hear of them, so the response carries them with the error.
    if (steps.length === 0 || !(err instanceof LlmError || err instanceof AppError)) throw err;
    return finish('model_error', null, { code: err.code, message: err.message });
  }
}

function offeredTools(all: AgentTool[], input: AgentInvokeInput): AgentTool[] {
  let tools = all.filter((t) => t.name !== 'svc_agent'); // no agent inside the agent
  if (input.read_only) tools = tools.filter((t) => t.readOnly);
  if (input.tools) {
    const unknown = input.tools.filter((name) => !tools.some((t) => t.name === name));
    if (unknown.length) throw validationFailed([{ path: 'tools', message: `not offered${input.read_only ? ' to a read-only agent' : ''}: ${unknown.join(', ')}` }]);
    tools = tools.filter((t) => input.tools!.includes(t.name));
  }
  return tools;
}

function goalMessage(input: AgentInvokeInput): string {
  return `Goal: ${input.goal}${input.project_id ? `\nProject: ${input.project_id} (pass it as project_id where a tool takes one)` : ''}`;
}

function systemPrompt(tools: AgentTool[], maxSteps: number): string {
  const list = tools.map((t) => `- ${t.name}${t.readOnly ? ' (reads only)' : ''}: ${t.description}\n  input: ${toolSignature(t.inputSchema)}`).join('\n');
  return [
    "You are svc's orchestrator. svc is an end-to-end testing platform; its agents — discovery, test generation, execution, healing, review, analytics — are offered to you as tools, each one of svc's API operations run with the user's own rights.",
    'Reach the user\'s goal by calling tools one at a time, reading each result, then answer.',
    'Each tool\'s input is shown as { field: type — what it is }, `?` marking an optional field. Reply with ONE JSON object and nothing else: either {"why": "<one sentence>", "tool": "<tool name>", "arguments": {…}} to call a tool, or {"answer": "<for the user: what you did, what you found, the ids that matter>"} when the goal is reached or cannot be reached.',
    `Rules: use only the tools below, with arguments that follow their input schema. Never invent ids or results: take them from tool results. A tool error explains itself (VALIDATION_FAILED names the field): correct the arguments or take another way. At most ${maxSteps} tool calls.`,
    `Tools:\n${list}`,
  ].join('\n\n');
}

/** The model's reply as a tool call or an answer; anything else is explained back to it. */
export function parseReply(text: string, tools: Map<string, AgentTool>): Reply {
  const json = firstJsonObject(text);
  if (!json) return { kind: 'invalid', problem: 'the reply was not one JSON object; reply with {"tool": …, "arguments": {…}} or {"answer": …}' };
  if (typeof json.answer === 'string' && json.answer.trim() && json.tool === undefined) return { kind: 'answer', answer: json.answer.trim() };
  if (typeof json.tool !== 'string') return { kind: 'invalid', problem: 'the reply named no tool and gave no answer' };
  if (!tools.has(json.tool)) return { kind: 'invalid', problem: `there is no tool ${JSON.stringify(json.tool).slice(0, 100)}; the tools are ${[...tools.keys()].join(', ')}` };
  const args = json.arguments ?? {};
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return { kind: 'invalid', problem: `arguments of ${json.tool} must be a JSON object` };
  return { kind: 'tool', tool: json.tool, why: typeof json.why === 'string' ? json.why.slice(0, 500) : null, args: args as Record<string, unknown> };
}

function firstJsonObject(text: string): Record<string, unknown> | undefined {
  const candidates = [text.trim()];
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start >= 0 && end > start) candidates.push(text.slice(start, end + 1)); // a model that wrapped it in prose or a code fence
  for (const c of candidates) {
    try {
      const v = JSON.parse(c);
      if (v && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
    } catch {
      // next candidate
    }
  }
  return undefined;
}
