import { z } from 'zod';

/** What git-aware healing returns (spec rule 2; issue #4 item 6). */
export const GitHealResult = z.object({
  original_selector: z.string(),
  healed_selector: z.string().nullable().describe('Proposed replacement; null for a removal or when unknown'),
  kind: z.enum(['rename', 'removal', 'unknown']),
  confidence: z.number().min(0).max(1).describe('How sure the classification (and, for a rename, the proposal) is'),
  commit: z.string().nullable().describe('Full id of the commit that removed the selector\'s token'),
  author: z.string().nullable(),
  author_email: z.string().nullable(),
  date: z.string().nullable().describe('Author date, ISO 8601'),
  message: z.string().nullable().describe('Commit subject'),
  file: z.string().nullable().describe('File in which the token was removed'),
  token: z.string().describe('The identifying part of the selector that was searched for'),
  evidence: z.object({ removed: z.string().optional(), added: z.string().optional() }).describe('The diff lines behind the verdict'),
  notes: z.array(z.string()),
});
export type GitHealResult = z.output<typeof GitHealResult>;

export interface GitHealInput {
  /** A local clone (working tree or bare). */
  repo: string;
  selector: string;
  /** A heal proposed by another method (DOM ranking), cross-checked against the history. */
  candidate?: string;
  /** Commits that touched the token examined at most (default 50). */
  maxCommits?: number;
  timeoutMs?: number;
}

export class GitHealError extends Error {
  constructor(readonly reason: 'not_found' | 'not_a_repository' | 'bad_selector' | 'git_failed', message: string) {
    super(message);
    this.name = 'GitHealError';
  }
}
