import { z } from 'zod';
import type { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import { AppError, notFound } from '@svc/core/errors';
import { limits } from '@svc/core/contracts/limits';
import { chatService } from '@svc/core/chat/service';
import { semanticSearchOf } from './semantic-search.ts';
import { ChatHistory, ChatReply, ChatRequest } from '@svc/core/chat/contracts';
import type { AppDeps } from '../deps.ts';
import type { ApiEnv } from '../env.ts';
import { mountRoute, type RouteDef } from '../route.ts';

const IdParams = z.strictObject({ id: z.uuid().describe('Conversation id') });
const SseResponse = { description: 'text/event-stream: message_start, delta (answer text in pieces), message_end (data, usage), error; every event has an id' };

/**
 * Chat (spec: /api/chat, /api/v1/chat, /api/v1/chat/history/{id}, /api/v1/stream/chat):
 * questions about the organization's tests, runs and heals, answered from stored data.
 */
export function chatRoutes(app: Hono<ApiEnv>, deps: AppDeps, registry: RouteDef[]) {
  const chat = chatService({ store: deps.store, llm: deps.llm, search: (orgId, q) => semanticSearchOf(deps).search(orgId, q) });

  for (const path of ['/api/chat', '/api/v1/chat']) {
    mountRoute(app, deps, registry, {
      method: 'post', path, summary: 'Ask a question about tests, runs and heals', tags: ['chat'], auth: 'viewer', body: ChatRequest,
      responses: { 200: { description: 'the answer and the data behind it', schema: ChatReply }, 404: { description: 'no such project or conversation in this organization' } },
    }, async ({ c, body, access, principal }) => {
      return c.json(await chat.ask({ organizationId: access.organizationId, userId: principal.userId }, body));
    });
  }

  mountRoute(app, deps, registry, {
    method: 'get', path: '/api/v1/chat/history/:id', summary: 'Messages of a conversation, oldest first', tags: ['chat'], auth: 'viewer', params: IdParams,
    responses: { 200: { description: 'the conversation and its messages', schema: ChatHistory }, 404: { description: 'no such conversation in this organization' } },
  }, async ({ c, params, access }) => c.json(await chat.history(access.organizationId, params.id)));

  mountRoute(app, deps, registry, {
    method: 'post', path: '/api/v1/stream/chat', summary: 'Ask a question; the answer streams as server-sent events', tags: ['chat', 'stream'], auth: 'viewer', body: ChatRequest,
    responses: { 200: SseResponse, 404: { description: 'no such project or conversation in this organization' } },
  }, async ({ c, body, access, principal }) => {
    // Unknown ids answer 404 as JSON, before the stream opens.
    const orgId = access.organizationId;
    if (body.conversation_id && !(await deps.store.chat.get(orgId, body.conversation_id))) throw notFound('conversation');
    if (body.project_id && !(await deps.store.projects.get(orgId, body.project_id))) throw notFound('project');
    c.header('X-Accel-Buffering', 'no');
    return streamSSE(c, async (stream) => {
      let id = 0;
      const send = (event: string, data: unknown) => stream.writeSSE({ event, id: String(++id), data: JSON.stringify(data) });
      // A model call can take a while: keep the connection alive meanwhile.
      const keepAlive = setInterval(() => void stream.write(': keep-alive\n\n').catch(() => undefined), limits.STREAM_KEEPALIVE_SECONDS * 1000);
      try {
        const reply = await chat.ask({ organizationId: orgId, userId: principal.userId }, body);
        clearInterval(keepAlive);
        await send('message_start', { conversation_id: reply.conversation_id, message_id: reply.message_id, intent: reply.intent, model: reply.model });
        for (const piece of pieces(reply.answer)) await send('delta', { text: piece });
        await send('message_end', { conversation_id: reply.conversation_id, message_id: reply.message_id, data: reply.data, usage: reply.usage, ...(reply.model_error ? { model_error: reply.model_error } : {}) });
      } catch (err) {
        clearInterval(keepAlive);
        const e = err instanceof AppError ? err : new AppError('INTERNAL', `internal error (request ${c.get('requestId')})`);
        if (!(err instanceof AppError)) deps.logger.error('chat stream failed', { error: (err as Error).message, requestId: c.get('requestId') });
        await send('error', { error: { code: e.code, message: e.message, ...(e.details !== undefined ? { details: e.details } : {}) } });
      }
    });
  });
}

/** The answer in word-aligned pieces of about 60 characters. */
export function pieces(text: string, size = 60): string[] {
  const out: string[] = [];
  let current = '';
  for (const word of text.split(/(?<=\s)/)) {
    if (current.length + word.length > size && current) {
      out.push(current);
      current = '';
    }
    current += word;
  }
  if (current) out.push(current);
  return out;
}
