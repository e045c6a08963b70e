import { z } from 'zod';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { AppError } from '@svc/core/errors';
import { GATEWAY_TOOLS, type GatewayTool } from '@svc/core/mcp/catalogue';
import { splitToolArguments, toolInputSchema } from '@svc/core/mcp/tool-input';
import type { RouteSpec } from '@svc/core/openapi/route';
import { followRun, takeWaitSeconds, WAIT_SECONDS_SCHEMA } from './follow.ts';

/**
 * The agent tool gateway as an MCP server (spec: Agent tool gateway, its six steps): it
 * receives a tool call, adds the caller's own credential, turns the arguments into the
 * backend route's request, forwards it, and turns the response back into a tool result.
 * The backend does the rest (validation naming the field, roles, tenant isolation, audit,
 * rate limits), exactly as for a direct API call by the same caller.
 */
export interface GatewayOptions {
  /** The tools to offer (gatewayCatalogue of the app's routes). */
  catalogue: GatewayCatalogue;
  /** Sends a request to the backend: the API app in process, or over HTTP. */
  forward: (request: Request) => Promise<Response>;
  /** Where the backend's paths are resolved. */
  baseUrl: string;
  /** Headers that carry the caller's credential and organization, added to every forwarded request. */
  callerHeaders: Record<string, string>;
  version: string;
}

export interface ResolvedTool {
  tool: GatewayTool;
  route: RouteSpec;
}

const asMcpTool = ({ tool, route }: ResolvedTool): Tool => {
  const inputSchema = toolInputSchema(route);
  if (tool.follow) inputSchema.properties.wait_seconds = WAIT_SECONDS_SCHEMA;
  for (const [name, value] of Object.entries(tool.defaults ?? {})) {
    const property = inputSchema.properties[name];
    if (property) inputSchema.properties[name] = { ...property, default: value, description: `${property.description ?? ''} (here: ${value})`.trim() };
  }
  return {
    name: tool.name,
    title: tool.title,
    description: `${tool.description} (${tool.method.toUpperCase()} ${tool.path}: ${route.summary})`,
    inputSchema,
    annotations: { title: tool.title, readOnlyHint: tool.readOnly, destructiveHint: false, openWorldHint: false },
  };
};

/** The tools on offer, as MCP lists them and by name. */
export interface GatewayCatalogue {
  tools: Tool[];
  byName: Map<string, ResolvedTool>;
}

/**
 * The catalogue's tools whose route exists and accepts API keys (an agent's credential),
 * with their input schemas. Built once per app: the schemas come from the routes' zod
 * schemas, which do not change while it runs. `offered` narrows the tools (svc's own
 * agent gets isAgentTool's: no person's decisions), so the others are neither listed nor
 * callable through that gateway.
 */
export function gatewayCatalogue(routes: readonly RouteSpec[], offered: (tool: GatewayTool) => boolean = () => true): GatewayCatalogue {
  const resolved: ResolvedTool[] = [];
  for (const tool of GATEWAY_TOOLS.filter(offered)) {
    const route = routes.find((r) => r.method.toLowerCase() === tool.method && r.path === tool.path);
    if (route && route.apiKeys !== false) resolved.push({ tool, route });
  }
  return { tools: resolved.map(asMcpTool), byName: new Map(resolved.map((t) => [t.tool.name, t])) };
}

/** A tool error in the API's own terms: code, message and details (e.g. the fields at fault). */
function errorResult(status: number, body: unknown): CallToolResult {
  const error = (body as { error?: { code?: string; message?: string } } | undefined)?.error;
  const headline = error?.code ? `${error.code}: ${error.message ?? ''}` : `HTTP ${status}`;
  return {
    isError: true,
    content: [{ type: 'text', text: typeof body === 'string' ? `${headline}\n${body}` : `${headline}\n${JSON.stringify(body, null, 2)}` }],
  };
}

/**
 * The most a tool result carries, in characters. Assistants put results into the model's
 * context (Claude Code warns at ~25k tokens); a self-contained HTML report with its
 * screenshots can be megabytes. A longer response is cut, and the result says so and where
 * the whole is.
 */
export const MAX_TOOL_RESULT_CHARS = 100_000;

/**
 * A result whose text is longer than MAX_TOOL_RESULT_CHARS: cut, saying so and naming the
 * request that returns the whole (`lead`: what the result says first, e.g. that a run is
 * still going). Undefined when the text fits.
 */
function cutResult(text: string, request: Request, lead?: string): CallToolResult | undefined {
  if (text.length <= MAX_TOOL_RESULT_CHARS) return undefined;
  const { pathname, search } = new URL(request.url);
  const where = `${request.method} ${pathname}${search}`;
  return {
    content: [
      ...(lead ? [{ type: 'text' as const, text: lead }] : []),
      { type: 'text', text: `The response is ${text.length} characters, more than a tool result carries (${MAX_TOOL_RESULT_CHARS}); the first ${MAX_TOOL_RESULT_CHARS} follow. The whole: ${where} on the svc API with the same credential (or narrow the request: a limit, another format).` },
      { type: 'text', text: text.slice(0, MAX_TOOL_RESULT_CHARS) },
    ],
  };
}

async function resultOf(response: Response, request: Request, imageField?: string): Promise<CallToolResult> {
  let text = await response.text();
  // A tool's image (svc_act's screenshot) goes as MCP image content, which clients show as a
  // picture, not as base64 in the JSON (which would also eat the text budget).
  const image = imageField && response.status < 400 ? takeImage(text, imageField) : undefined;
  if (image) text = image.text;
  const isJson = /\bjson\b/i.test(response.headers.get('content-type') ?? '');
  let body: unknown = text;
  if (isJson && text !== '') {
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON after all: passed on as text
    }
  }
  if (response.status >= 400) return errorResult(response.status, body);
  if (typeof body === 'string') return cutResult(body, request) ?? { content: [{ type: 'text', text: body || `HTTP ${response.status}` }] };
  // Measured as sent: pretty-printed JSON is longer than the response (indentation adds a third or more).
  const pretty = JSON.stringify(body, null, 2);
  const cut = cutResult(pretty, request);
  if (cut) return cut;
  const result: CallToolResult = { content: [{ type: 'text', text: pretty }, ...(image ? [{ type: 'image' as const, data: image.data, mimeType: image.mimeType }] : [])] };
  if (body !== null && typeof body === 'object' && !Array.isArray(body)) result.structuredContent = body as Record<string, unknown>;
  return result;
}

/** The response without the image's base64 (the field keeps its size and says where it went), and the image. */
function takeImage(text: string, field: string): { text: string; data: string; mimeType: string } | undefined {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return undefined;
  }
  const picture = body && typeof body === 'object' ? (body as Record<string, unknown>)[field] : undefined;
  if (!picture || typeof picture !== 'object') return undefined;
  const { base64, ...rest } = picture as { base64?: unknown; mime_type?: unknown };
  if (typeof base64 !== 'string' || typeof rest.mime_type !== 'string') return undefined;
  return { text: JSON.stringify({ ...(body as object), [field]: { ...rest, base64: '(sent as the image content of this result)' } }), data: base64, mimeType: rest.mime_type };
}

const AnyToolCall = z.object({ method: z.literal('tools/call'), params: z.unknown() });

export function createGatewayServer(options: GatewayOptions): Server {
  const { tools, byName } = options.catalogue;
  // Named only where they are offered: svc's own agent has no approval tools, and must not be sent looking for them.
  const decideWith = byName.has('svc_approve_run') ? 'if the person you work for says so: svc_approve_run, svc_reject_run or svc_modify_run; ' : '';
  const server = new Server(
    { name: 'svc', title: 'svc end-to-end testing', version: options.version },
    {
      capabilities: { tools: {} },
      instructions: 'svc runs UI, API and database tests, generates and heals them. Start with svc_list_projects; run tests with svc_test (wait_seconds to wait for the outcome), then read svc_results or svc_report.',
    },
  );

  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));

  // Registered with a lenient schema: the SDK parses a request with the registered schema
  // before its own tools/call check, so a malformed call (arguments that are not an object)
  // failed as -32603 internal error; this way the SDK's check answers -32602 invalid params.
  server.setRequestHandler(AnyToolCall, async (raw, extra): Promise<CallToolResult> => {
    const request = CallToolRequestSchema.parse(raw);
    const entry = byName.get(request.params.name);
    if (!entry) throw new McpError(ErrorCode.InvalidParams, `unknown tool ${JSON.stringify(request.params.name)}; tools/list names the ${tools.length} tools`);
    let split;
    let waitSeconds;
    try {
      const taken = takeWaitSeconds(entry.tool, { ...entry.tool.defaults, ...request.params.arguments });
      waitSeconds = taken.waitSeconds;
      split = splitToolArguments(entry.route, taken.rest);
    } catch (err) {
      if (err instanceof AppError) return errorResult(400, { error: { code: err.code, message: err.message, details: err.details } });
      throw err;
    }
    const url = new URL(split.path, options.baseUrl);
    for (const [k, v] of Object.entries(split.query)) url.searchParams.set(k, v);
    const asCaller: Record<string, string> = { ...options.callerHeaders, accept: 'application/json' };
    const headers = split.body === undefined ? asCaller : { ...asCaller, 'content-type': 'application/json' };
    const forwarded = new Request(url, { method: entry.tool.method.toUpperCase(), headers, ...(split.body !== undefined && { body: JSON.stringify(split.body) }) });
    const response = await options.forward(forwarded);
    if (!entry.tool.follow || !waitSeconds || response.status >= 400) return resultOf(response, forwarded, entry.tool.image);

    const outcome = await followRun({
      follow: entry.tool.follow,
      started: await response.json(),
      waitSeconds,
      statusRequest: (path) => new Request(new URL(path, options.baseUrl), { headers: asCaller }),
      forward: options.forward,
      signal: extra.signal,
    });
    if (outcome.kind === 'failed') return resultOf(outcome.response, outcome.request);
    const lead =
      outcome.kind === 'still-running' ? `Run ${outcome.id} has not finished after ${waitSeconds} s; its status so far follows. Follow it with svc_run_status { "id": "${outcome.id}" }.`
      : outcome.kind === 'awaiting-approval' ? `Run ${outcome.id} is waiting for approval (pending_approvals below) and goes on only once someone approves or rejects it (${decideWith}the dashboard, or POST /api/v1/approvals/{thread_id}/approve or /reject); its status so far follows. Follow it with svc_run_status { "id": "${outcome.id}" }.`
      : undefined;
    // The status carries the run's whole test plan: cut to the limit as any other result (it was not, found by QA).
    const text = JSON.stringify(outcome.status, null, 2);
    const cut = cutResult(text, outcome.request, lead);
    if (cut) return cut;
    const result: CallToolResult = { content: [{ type: 'text', text }], structuredContent: outcome.status as Record<string, unknown> };
    if (lead) result.content.unshift({ type: 'text', text: lead });
    return result;
  });

  return server;
}
