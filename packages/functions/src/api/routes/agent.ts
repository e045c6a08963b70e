import type { Hono } from 'hono';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { AgentInvokeInput, AgentInvokeResponse } from '@svc/core/contracts/agent';
import { runAgent, type AgentTool } from '@svc/core/agent/orchestrator';
import { notFound } from '@svc/core/errors';
import { createGatewayServer } from '../../mcp/gateway.ts';
import type { AppDeps } from '../deps.ts';
import type { ApiEnv } from '../env.ts';
import { mountRoute, presentedCredential, type RouteDef } from '../route.ts';
import { catalogueOf } from './mcp.ts';

/**
 * POST /api/agent/invoke (and /api/v1/agent/invoke; MCP svc_agent): a model reaches a goal
 * by calling svc's tools (core agent/orchestrator.ts). The tools are the MCP gateway's,
 * reached through the MCP SDK's own client in process, with the caller's credential: the
 * agent can do exactly what its caller may, and each step is validated, audited and
 * rate-limited like the caller's own request.
 */
export function agentRoutes(app: Hono<ApiEnv>, deps: AppDeps, registry: RouteDef[]) {
  for (const path of ['/api/agent/invoke', '/api/v1/agent/invoke']) {
    mountRoute(app, deps, registry, {
      method: 'post', path, summary: "Reach a goal with svc's agents: a model calls svc's tools (discover, generate, run, heal, report …) with the caller's rights, then answers", tags: ['intelligence'], auth: 'member', body: AgentInvokeInput,
      responses: {
        200: { description: 'the answer and every step taken (status says whether the model concluded)', schema: AgentInvokeResponse },
        400: { description: 'invalid input (the error names the field), e.g. a tool that is not offered' },
        404: { description: 'no such project in this organization' },
        429: { description: "the organization's model budget is spent" },
        501: { description: 'no language model is configured (SVC_LLM_PROVIDERS)' },
      },
    }, async ({ c, body, access }) => {
      if (body.project_id && !(await deps.store.projects.get(access.organizationId, body.project_id))) throw notFound('project');
      // Whatever the caller presented (key, token or the dashboard's session), forwarded as a bearer credential for this organization.
      const callerHeaders = { authorization: `Bearer ${presentedCredential(c)}`, 'x-organization-id': access.organizationId };
      const server = createGatewayServer({
        // Without the persons' decisions: the agent plans and heals runs, and must not approve its own plan or fix.
        catalogue: catalogueOf(registry, 'agent'),
        forward: (request) => Promise.resolve(app.fetch(request, c.env)),
        baseUrl: new URL(c.req.url).origin,
        callerHeaders,
        version: deps.config.version,
      });
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      const client = new Client({ name: 'svc-agent', version: deps.config.version });
      await server.connect(serverSide);
      await client.connect(clientSide);
      try {
        const listed = (await client.listTools()).tools;
        const tools: AgentTool[] = listed.map((t) => ({ name: t.name, description: t.description ?? t.name, inputSchema: t.inputSchema as Record<string, unknown>, readOnly: t.annotations?.readOnlyHint === true }));
        const outcome = await runAgent({
          llm: deps.llm,
          context: { organizationId: access.organizationId },
          tools,
          async callTool(name, args, signal) {
            // Tool calls may run long (svc_test waiting for its run): no client-side timeout beyond the agent's own limit.
            const result = await client.callTool({ name, arguments: args }, undefined, { signal, timeout: 15 * 60_000 });
            const text = (result.content as Array<{ type: string; text?: string }>).filter((p) => p.type === 'text').map((p) => p.text ?? '').join('\n');
            return { isError: result.isError === true, text };
          },
        }, body, c.req.raw.signal);
        c.set('audit', { action: 'agent.invoke', resource: body.project_id ? `project:${body.project_id}` : `organization:${access.organizationId}`, metadata: { status: outcome.status, steps: outcome.steps.map((s) => s.tool) } });
        return c.json(outcome);
      } finally {
        await client.close().catch(() => undefined);
        await server.close().catch(() => undefined);
      }
    });
  }
}
