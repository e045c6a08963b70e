import { z } from 'zod';
import { Uuid } from './common.ts';

/**
 * Review comments (spec capability matrix: "Review comments … — dashboard Y, agent gateway
 * -"): people discuss a run, a test, a visual baseline or a generated test where they look
 * at it. A comment starts a thread or answers one (one level, as in code review); a thread
 * is resolved and reopened as a whole. Bodies are plain text: the dashboard never renders
 * them as HTML.
 */
export const CommentTargetType = z.enum(['run', 'test', 'visual_baseline', 'generated_test']).describe('What the comment is about');
export type CommentTargetType = z.output<typeof CommentTargetType>;

/** How many comments one target keeps: a review, not a chat room. */
export const MAX_COMMENTS_PER_TARGET = 500;

const Body = z.string().trim().min(1, 'a comment needs some text').max(10_000).describe('Plain text (never rendered as HTML)');

export const CommentTargetQuery = z.strictObject({
  target_type: CommentTargetType,
  target_id: Uuid.describe('Id of the run, test, visual baseline or generated test'),
});
export type CommentTargetQuery = z.output<typeof CommentTargetQuery>;

export const ReviewCommentCreateInput = z.strictObject({
  target_type: CommentTargetType,
  target_id: Uuid.describe('Id of the run, test, visual baseline or generated test'),
  body: Body,
  parent_id: Uuid.optional().describe('Answer this thread (the id of the comment that starts it)'),
  test_id: Uuid.optional().describe("On a run: the test whose result the comment is about"),
});
export type ReviewCommentCreateInput = z.output<typeof ReviewCommentCreateInput>;

export const ReviewCommentUpdateInput = z
  .strictObject({
    body: Body.optional().describe('New text (the author only)'),
    resolved: z.boolean().optional().describe('Resolve or reopen the thread this comment starts (any member)'),
  })
  .refine((v) => v.body !== undefined || v.resolved !== undefined, { message: 'body or resolved is required' });
export type ReviewCommentUpdateInput = z.output<typeof ReviewCommentUpdateInput>;

export const ReviewCommentSchema = z.object({
  id: Uuid,
  target_type: CommentTargetType,
  target_id: z.string(),
  project_id: z.string().describe('Project of the target'),
  test_id: z.string().nullable().describe("On a run: the test whose result it is about"),
  parent_id: z.string().nullable().describe('The thread it answers; null when it starts one'),
  body: z.string().describe('Empty once deleted while its thread still has answers'),
  author: z.string().describe('user:<id>'),
  author_email: z.string(),
  resolved: z.boolean().describe('Thread starters only: the thread is resolved'),
  resolved_by: z.string().nullable(),
  resolved_at: z.string().nullable(),
  edited_at: z.string().nullable(),
  deleted_at: z.string().nullable().describe('Set when a thread starter was deleted and its answers kept'),
  created_at: z.string(),
  updated_at: z.string(),
});
export type ReviewComment = z.output<typeof ReviewCommentSchema>;

export const ReviewCommentListSchema = z.object({
  items: z.array(ReviewCommentSchema).describe('Oldest first; answers follow the thread they belong to by parent_id'),
  open_threads: z.number().int().describe('Threads not resolved (a deleted starter whose answers remain counts too)'),
});
