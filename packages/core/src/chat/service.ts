import { notFound } from '../errors.ts';
import { LlmError } from '../llm/errors.ts';
import type { LlmClient, LlmMessage } from '../llm/types.ts';
import type { Store } from '../store/index.ts';
import type { ChatMessage } from '../store/chat.ts';
import { builtInAnswer, searchAnswer, type ChatSearchHit, type HealingSource } from './answers.ts';
import type { ChatReply, ChatRequest } from './contracts.ts';
import { matchIntent, type BuiltInIntent } from './intents.ts';
import { retrieveChatData, type ChatData } from './retrieve.ts';

const HISTORY_FOR_MODEL = 10;
/** Matches the vector tier gives, and the relevance below which a match does not answer a question (search's own floor is 0.12: noise). */
export const CHAT_SEARCH_LIMIT = 5;
export const CHAT_SEARCH_MIN_SCORE = 0.2;
/** A question that asks what chat can do: the help answer, not a search. */
const HELP_REQUEST = /^\s*(help|\?+|what can you (do|answer)\??)\s*[.!?]*\s*$/i;

/** The search chat's vector tier calls (semantic search, docs/search.md). */
export type ChatSearch = (orgId: string, query: { q: string; project_id?: string; limit: number }) => Promise<{ results: ChatSearchHit[] }>;

export interface ChatCaller {
  organizationId: string;
  userId: string;
}

/**
 * Chat about a project's tests, runs and heals, answered from stored data, by tiers (spec
 * rule 5): the deterministic matcher over the stored runs (intents.ts, answers.ts); for a
 * question it does not recognise, semantic search over tests, recent failures and heals
 * (the vector tier, `search`); then, with a model, the retrieved data, the search's matches
 * and the question go to the router as a SIMPLE task (MODERATE when the matcher did not
 * recognise the question) and the model is told to cite the rows. If the model call fails,
 * the tiers' answer is given with `model_error` saying why.
 */
export function chatService(deps: { store: Store; llm?: LlmClient; search?: ChatSearch }) {
  const { store } = deps;

  async function healingSource(orgId: string, projectId: string | null): Promise<HealingSource> {
    const repo = (store as Partial<Store>).healingPatterns;
    if (!repo) return { available: false, patterns: [] };
    const page = await repo.list(orgId, { limit: 20, ...(projectId ? { project_id: projectId } : {}) } as Parameters<typeof repo.list>[1]);
    return {
      available: true,
      patterns: page.items.map((p) => ({ id: p.id, original_selector: p.original_selector, healed_selector: p.healed_selector, confidence: p.confidence, method: p.method, reverted_at: p.reverted_at ?? null })),
    };
  }

  /** The vector tier's matches worth answering with; none when search fails (the next tier answers). */
  async function searchFor(orgId: string, q: string, projectId: string | null): Promise<ChatSearchHit[]> {
    try {
      const found = await deps.search!(orgId, { q: q.slice(0, 500), ...(projectId ? { project_id: projectId } : {}), limit: CHAT_SEARCH_LIMIT });
      return found.results.filter((h) => h.score >= CHAT_SEARCH_MIN_SCORE);
    } catch {
      return [];
    }
  }

  return {
    async ask(caller: ChatCaller, req: ChatRequest): Promise<ChatReply> {
      const orgId = caller.organizationId;
      const projectId = req.project_id ?? null;
      let conversation = req.conversation_id ? await store.chat.get(orgId, req.conversation_id) : undefined;
      if (req.conversation_id && !conversation) throw notFound('conversation');
      if (projectId && !(await store.projects.get(orgId, projectId))) throw notFound('project');
      const scopeProject = projectId ?? conversation?.project_id ?? null;
      conversation ??= await store.chat.create(orgId, { projectId: scopeProject, createdBy: caller.userId, title: req.message });
      const earlier = req.conversation_id ? await store.chat.messages(orgId, conversation.id) : [];

      const intent = matchIntent(req.message);
      const [data, healing] = await Promise.all([retrieveChatData(store, orgId, scopeProject), healingSource(orgId, scopeProject)]);
      const hits = intent === 'help' && deps.search && !HELP_REQUEST.test(req.message) ? await searchFor(orgId, req.message, scopeProject) : [];
      const builtIn = hits.length ? searchAnswer(hits, data) : builtInAnswer(intent, data, healing);

      let reply: Omit<ChatReply, 'conversation_id' | 'message_id'> = { answer: builtIn.answer, intent: builtIn.intent, data: builtIn.data, model: null, usage: null };
      if (deps.llm?.configured) {
        try {
          const context = { ...modelContext(data, healing), ...(hits.length ? { search_matches: hits } : {}) };
          const res = await deps.llm.complete(
            { type: 'chat_answer', complexity: intent === 'help' ? 'MODERATE' : 'SIMPLE' },
            { system: SYSTEM_PROMPT, messages: [...history(earlier), { role: 'user', content: `Data (JSON):\n${JSON.stringify(context)}\n\nQuestion: ${req.message}` }], maxTokens: 800, temperature: 0 },
            { organizationId: orgId },
          );
          reply = { answer: res.text.trim(), intent: 'model', data: { ...context, matched_intent: intent === 'help' ? null : intent }, model: res.model, usage: { input_tokens: res.inputTokens, output_tokens: res.outputTokens, cost_usd: res.costUsd } };
        } catch (err) {
          if (!(err instanceof LlmError)) throw err;
          reply.model_error = { reason: err.reason, message: err.message };
        }
      }

      await store.chat.append(orgId, conversation.id, { role: 'user', content: req.message, intent: null, data: null, model: null });
      const saved = await store.chat.append(orgId, conversation.id, { role: 'assistant', content: reply.answer, intent: reply.intent, data: reply.data, model: reply.model });
      return { conversation_id: conversation.id, message_id: saved.id, ...reply };
    },

    async history(orgId: string, conversationId: string) {
      const conversation = await store.chat.get(orgId, conversationId);
      if (!conversation) throw notFound('conversation');
      const { organization_id: _o, ...rest } = conversation;
      return { conversation: rest, messages: await store.chat.messages(orgId, conversationId) };
    },
  };
}

export type ChatService = ReturnType<typeof chatService>;

const SYSTEM_PROMPT = [
  'You answer questions about a software project\'s automated tests, test runs and self-healing, using only the JSON data given with the question.',
  'Cite what you rely on: run ids, test names, statuses, durations. If the data does not answer the question, say so and say what data is missing.',
  'Be brief: a few sentences or a short list.',
].join(' ');

/** The last messages of the conversation, for follow-up questions. */
function history(messages: ChatMessage[]): LlmMessage[] {
  return messages.slice(-HISTORY_FOR_MODEL).map((m) => ({ role: m.role, content: m.content }));
}

/** Every built-in answer's rows, so the model sees failures, heals, flakiness, timings and counts at once. */
function modelContext(data: ChatData, healing: HealingSource): Record<string, unknown> {
  const intents: BuiltInIntent[] = ['last_run', 'failed', 'healed', 'flaky', 'slowest', 'test_count'];
  return { runs_considered: data.runs.map((r) => r.id), ...Object.fromEntries(intents.map((i) => [i, builtInAnswer(i, data, healing).data.rows])) };
}
