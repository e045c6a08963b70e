import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { serverCredential, signInAgainHint } from './server-credential.ts';
import { usageError } from './usage-error.ts';

export const MCP_HELP = `Usage: svc mcp [--server <url>] [--organization <id>]

Serves svc's agent tools over MCP on standard input and output, for assistants that
start their tools as a process. Every call goes to a running svc server's /mcp endpoint
(svc start, or a deployment) with your credential; the server does the work.

Options:
  --server <url>       The svc server (env SVC_SERVER_URL, default http://127.0.0.1:4600)
  --organization <id>  Organization to act in, with an access token (env SVC_ORGANIZATION_ID;
                       an API key always acts in its own)

The credential comes from the environment, never the command line (process lists show it):
SVC_API_KEY (svc_sk_…) or SVC_TOKEN (an access token); without either, the sign-in that
svc login stored for the server (its organization, unless --organization names another),
refreshed as it expires.

Exit code: 0 when standard input closes; 2 for bad usage, or a server that cannot be
reached or refuses the credential.
`;

const usage = (message: string): number => usageError('mcp', message);

/**
 * `svc mcp`: a stdio MCP server that relays tools/list and tools/call to the server's
 * Streamable HTTP gateway. It holds no tools of its own, so it can never disagree with
 * the server it talks to. Only MCP messages go to stdout; messages for people go to stderr.
 */
export async function mcpCommand(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({ args, options: { server: { type: 'string' }, organization: { type: 'string' }, help: { type: 'boolean', short: 'h' } }, strict: true }));
  } catch (err) {
    return usage((err as Error).message);
  }
  if (values.help) {
    process.stdout.write(MCP_HELP);
    return 0;
  }
  let endpoint: URL;
  try {
    endpoint = new URL('/mcp', values.server || env.SVC_SERVER_URL || 'http://127.0.0.1:4600');
  } catch {
    return usage(`--server must be a URL, got ${JSON.stringify(values.server ?? env.SVC_SERVER_URL)}`);
  }
  const credential = await serverCredential(env, endpoint.origin, values.organization);
  if (typeof credential === 'string') return usage(credential);
  // A stored sign-in's access token lasts minutes: every request asks for a fresh one (refreshed when due).
  const { freshToken } = credential;
  const withFreshToken: typeof fetch | undefined = freshToken && (async (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set('authorization', `Bearer ${await freshToken()}`);
    return fetch(input, { ...init, headers });
  });

  const remote = new Client({ name: 'svc-mcp-stdio', version: '0.1.0' });
  try {
    await remote.connect(new StreamableHTTPClientTransport(endpoint, { requestInit: { headers: credential.staticHeaders }, ...(withFreshToken && { fetch: withFreshToken }) }));
  } catch (err) {
    const { code, message } = (err as { cause?: { code?: string; message?: string } }).cause ?? {};
    const cause = code ?? message; // e.g. ECONNREFUSED: no server there
    // A stored sign-in the server refuses was signed out (or lapsed): say how to get a new one.
    const hint = credential.storedSignIn && /\b401\b|INVALID_TOKEN|no longer works/.test((err as Error).message) ? `\n${signInAgainHint(endpoint.origin)}` : '';
    process.stderr.write(`svc mcp: cannot use ${endpoint.href}: ${(err as Error).message}${cause ? ` (${cause})` : ''}${hint}\n`);
    return 2;
  }

  const server = new Server(
    { name: 'svc', version: remote.getServerVersion()?.version ?? '0.1.0' },
    { capabilities: { tools: {} }, ...(remote.getInstructions() && { instructions: remote.getInstructions() }) },
  );
  server.setRequestHandler(ListToolsRequestSchema, (request) => remote.listTools(request.params));
  server.setRequestHandler(CallToolRequestSchema, async (request) => (await remote.callTool(request.params)) as CallToolResult);

  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    process.stdin.once('end', () => resolve());
  });
  await server.connect(transport);
  process.stderr.write(`svc mcp: relaying to ${endpoint.href}\n`);
  await closed;
  await server.close().catch(() => undefined);
  await remote.close().catch(() => undefined);
  return 0;
}
