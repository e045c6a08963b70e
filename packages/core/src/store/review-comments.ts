import type { CommentTargetType, ReviewComment } from '../contracts/review-comments.ts';
import type { Item } from '../ports/table.ts';
import { keys, stripLayout } from './keys.ts';
import { queryAll, type StoreContext } from './context.ts';

export type NewReviewComment = Omit<ReviewComment, 'id' | 'created_at' | 'updated_at' | 'resolved' | 'resolved_by' | 'resolved_at' | 'edited_at' | 'deleted_at'>;

const fromItem = (item: Item): ReviewComment => stripLayout<ReviewComment>(item);

/**
 * Review comments, in their organization's partition (an id from another tenant resolves to
 * nothing) and on the first index by target, oldest first, so a target's comments are one
 * query.
 */
export function reviewCommentsRepo(ctx: StoreContext) {
  const { table } = ctx;
  const itemOf = (orgId: string, c: ReviewComment) => ({
    ...keys.reviewComment(orgId, c.id),
    gsi1pk: keys.commentsOfTarget(orgId, c.target_type, c.target_id),
    gsi1sk: `${c.created_at}#${c.id}`,
    entity: 'review_comment',
    ...c,
  });

  return {
    /** The store's clock, for the times a change records (edited, resolved, deleted). */
    now: () => ctx.clock.now().toISOString(),

    async create(orgId: string, input: NewReviewComment): Promise<ReviewComment> {
      const now = ctx.clock.now().toISOString();
      const comment: ReviewComment = { ...input, id: ctx.newId(), resolved: false, resolved_by: null, resolved_at: null, edited_at: null, deleted_at: null, created_at: now, updated_at: now };
      await table.put(itemOf(orgId, comment), { kind: 'notExists' });
      return comment;
    },

    async get(orgId: string, id: string): Promise<ReviewComment | undefined> {
      const item = await table.get(keys.reviewComment(orgId, id));
      return item ? fromItem(item) : undefined;
    },

    /** Every comment on a target, oldest first (a target keeps at most MAX_COMMENTS_PER_TARGET). */
    async listForTarget(orgId: string, type: CommentTargetType, targetId: string): Promise<ReviewComment[]> {
      const items = await queryAll(table, { index: 'gsi1', pk: keys.commentsOfTarget(orgId, type, targetId) });
      return items.map(fromItem);
    },

    /** Writes the change onto the comment the caller read; conditional on that read, so a change made meanwhile fails it. */
    async update(orgId: string, current: ReviewComment, set: Partial<ReviewComment>): Promise<ReviewComment> {
      const next: ReviewComment = { ...current, ...set, updated_at: ctx.clock.now().toISOString() };
      await table.put(itemOf(orgId, next), { kind: 'equals', attr: 'updated_at', value: current.updated_at });
      return next;
    },

    async delete(orgId: string, ids: string[]): Promise<void> {
      await table.transact(ids.map((id) => ({ type: 'delete' as const, key: keys.reviewComment(orgId, id) })));
    },
  };
}
