import type { Context, Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { AppError } from '@svc/core/errors';
import { findTooDeep, jsonTooDeepError, MAX_JSON_DEPTH } from '@svc/core/contracts/json-body';
import { isAgentTool } from '@svc/core/mcp/catalogue';
import { createGatewayServer, gatewayCatalogue, type GatewayCatalogue } from '../../mcp/gateway.ts';
import type { AppDeps } from '../deps.ts';
import type { ApiEnv } from '../env.ts';
import { presentedCredential, type RouteDef } from '../route.ts';

/** A tool's arguments are a body (MAX_JSON_DEPTH) inside params.arguments, maybe in a batch. */
const MCP_MAX_JSON_DEPTH = MAX_JSON_DEPTH + 3;

/** The caller's headers the gateway passes on to the backend with every tool call. */
const FORWARDED = ['authorization', 'x-api-key', 'x-organization-id'];

/** The caller's credential headers, as the gateway forwards them (the session cookie is never among them). */
export function callerHeadersOf(c: Context<ApiEnv>): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const name of FORWARDED) {
    const value = c.req.header(name);
    if (value) headers[name] = value;
  }
  return headers;
}

const catalogues = { assistant: new WeakMap<RouteDef[], GatewayCatalogue>(), agent: new WeakMap<RouteDef[], GatewayCatalogue>() };
/**
 * The gateway's tools over the app's routes, built at the first call: the registry is
 * complete once createApp has returned. `agent`: the tools of svc's own agent (svc_agent),
 * without the persons' decisions (catalogue.ts isAgentTool).
 */
export function catalogueOf(registry: RouteDef[], audience: 'assistant' | 'agent' = 'assistant'): GatewayCatalogue {
  let catalogue = catalogues[audience].get(registry);
  if (!catalogue) catalogues[audience].set(registry, (catalogue = gatewayCatalogue(registry, audience === 'agent' ? isAgentTool : undefined)));
  return catalogue;
}

/**
 * The agent tool gateway over MCP's Streamable HTTP transport at /mcp (stateless: each
 * POST is one exchange with a server of its own, so it runs the same in the local server
 * and in the API Lambda). The caller authenticates as for the API (an API key as Bearer
 * or X-API-Key, or an access token); a missing or bad credential is a 401 before any MCP
 * message is read. Each tool call is forwarded to the API in process with that credential.
 */
export function mcpRoutes(app: Hono<ApiEnv>, deps: AppDeps, registry: RouteDef[]) {
  // The message is read whole for the depth check: the server's body limit applies first.
  const limit = bodyLimit({
    maxSize: deps.config.maxBodyBytes,
    onError: () => {
      throw new AppError('PAYLOAD_TOO_LARGE', `request body exceeds ${deps.config.maxBodyBytes} bytes`);
    },
  });
  app.post('/mcp', limit, async (c: Context<ApiEnv>) => {
    // A header credential only: the session cookie is the dashboard's, and a tool call could
    // not forward it anyway. (It also keeps a cross-site form post from riding on it.)
    const credential = c.req.header('authorization') || c.req.header('x-api-key') ? presentedCredential(c) : undefined;
    if (!credential) throw new AppError('UNAUTHENTICATED', 'authentication required: send an API key (Authorization: Bearer svc_sk_… or X-API-Key) or an access token');
    await deps.identity.authenticate(credential);
    const server = createGatewayServer({
      catalogue: catalogueOf(registry),
      forward: (request) => Promise.resolve(app.fetch(request, c.env)),
      baseUrl: new URL(c.req.url).origin,
      callerHeaders: callerHeadersOf(c),
      version: deps.config.version,
    });
    const transport = new WebStandardStreamableHTTPServerTransport({ enableJsonResponse: true, maxRequestBodySize: deps.config.maxBodyBytes });
    await server.connect(transport);
    try {
      return await transport.handleRequest(await withinDepth(c.req.raw));
    } finally {
      await server.close().catch(() => undefined);
    }
  });
  /**
   * The message's text, refused when it nests deeper than a tool's arguments may (the API's
   * limit plus the JSON-RPC envelope: a batch, params, arguments) before the SDK parses it.
   */
  async function withinDepth(request: Request): Promise<Request> {
    const text = await request.text();
    const deep = findTooDeep(text, MCP_MAX_JSON_DEPTH);
    if (deep) throw jsonTooDeepError(deep, MCP_MAX_JSON_DEPTH, 'the MCP message');
    return new Request(request.url, { method: request.method, headers: request.headers, body: text });
  }
  // Stateless: no server-initiated stream (GET) and no session to end (DELETE).
  for (const method of ['GET', 'DELETE'] as const) {
    app.on(method, '/mcp', (c) => c.json({ jsonrpc: '2.0', error: { code: -32000, message: `${method} is not supported: this MCP endpoint is stateless; POST JSON-RPC messages` }, id: null }, 405, { Allow: 'POST' }));
  }
}
