/**
 * Helpers for the model-chooser tests: read the prompt a provider received (OpenAI or
 * Anthropic wire format) and a stand-in "model" that answers by reading it, the way a
 * real model would — it sees only what the prompt shows.
 */
import type { RecordedRequest } from '../../llm/support/wire-double.ts';

/** The user prompt text of a recorded request, in either wire format. */
export function promptOf(req: RecordedRequest): string {
  const messages = (req.body?.messages ?? []) as Array<{ role: string; content: unknown }>;
  const user = messages.filter((m) => m.role === 'user').at(-1);
  if (!user) return '';
  if (typeof user.content === 'string') return user.content;
  return (user.content as Array<{ type: string; text?: string }>).filter((c) => c.type === 'text').map((c) => c.text ?? '').join('\n');
}

export interface ParsedChoicePrompt {
  recorded: Record<string, unknown>;
  candidates: Array<Record<string, unknown>>;
}

/** Parses the chooser's prompt: the recorded element's JSON line and the "[i] {...}" candidate lines. */
export function parseChoicePrompt(prompt: string): ParsedChoicePrompt {
  const lines = prompt.split('\n');
  const recordedAt = lines.findIndex((l) => l.startsWith('Recorded element'));
  const recorded = JSON.parse(lines[recordedAt + 1]) as Record<string, unknown>;
  const candidates = lines.filter((l) => /^\[\d+\] /.test(l)).map((l) => JSON.parse(l.replace(/^\[\d+\] /, '')) as Record<string, unknown>);
  return { recorded, candidates };
}

/**
 * A careful reader: the candidate with the recorded element's `name` attribute, else its
 * test id, else none — and it says why.
 */
export function readingModel(prompt: string): { choice: number | 'none'; reason: string } {
  const { recorded, candidates } = parseChoicePrompt(prompt);
  const byName = recorded.name ? candidates.findIndex((c) => c.name === recorded.name && c.tag === recorded.tag) : -1;
  if (byName >= 0) return { choice: byName, reason: `same ${recorded.tag} with name=${recorded.name}` };
  const byTestId = recorded.testId ? candidates.findIndex((c) => c.testId === recorded.testId) : -1;
  if (byTestId >= 0) return { choice: byTestId, reason: `same test id ${recorded.testId}` };
  return { choice: 'none', reason: 'no candidate has the same name or test id' };
}
