import { MAX_COMMENTS_PER_TARGET, type CommentTargetType, type ReviewComment, type ReviewCommentCreateInput, type ReviewCommentUpdateInput } from '../contracts/review-comments.ts';
import { AppError, conflict, forbidden, notFound, validationFailed } from '../errors.ts';
import { ConditionFailedError } from '../ports/table.ts';
import type { Store } from '../store/index.ts';

/** Who writes: a person (comments are dashboard-only), with the organization role they act with. */
export interface Commenter {
  /** `user:<id>` */
  actor: string;
  email: string;
  /** May delete anyone's comment. */
  admin: boolean;
}

interface Target {
  project_id: string;
  /** Ids of the tests a run planned (a comment on a run may name one of them). */
  testIds?: Set<string>;
}

const TARGET_NAMES: Record<CommentTargetType, string> = { run: 'run', test: 'test', visual_baseline: 'visual baseline', generated_test: 'generated test' };

/**
 * Review comments (docs/review-comments.md): threads of plain-text comments on a run, a
 * test, a visual baseline or a generated test of the caller's organization. The target is
 * read on every call, so another tenant's ids, and ids of nothing, are a 404.
 */
export function reviewCommentService({ store }: { store: Store }) {
  async function targetOf(orgId: string, type: CommentTargetType, id: string): Promise<Target> {
    const found = await (async (): Promise<Target | undefined> => {
      switch (type) {
        case 'run': {
          const run = await store.testRuns.get(orgId, id);
          if (!run) return undefined;
          // The run's tests: those with a result, and those its record plans.
          const results = await store.testRuns.results(orgId, id);
          return { project_id: run.project_id, testIds: new Set([...results.map((r) => r.test_id), ...run.test_plan.map((t) => String(t.id))]) };
        }
        case 'test':
          return store.tests.get(orgId, id);
        case 'visual_baseline':
          return store.visualBaselines.get(orgId, id);
        case 'generated_test':
          return store.generatedTests.get(orgId, id);
      }
    })();
    if (!found) throw notFound(TARGET_NAMES[type]);
    return found;
  }

  const mustGet = async (orgId: string, id: string) => {
    const comment = await store.reviewComments.get(orgId, id);
    if (!comment) throw notFound('comment');
    return comment;
  };

  /** A change made between our read and our write (another person's) is a 409, not a lost update. */
  const changedMeanwhile = (err: unknown) => (err instanceof ConditionFailedError ? conflict('the comment changed meanwhile: read it again') : err);

  return {
    async list(orgId: string, type: CommentTargetType, targetId: string): Promise<{ items: ReviewComment[]; open_threads: number }> {
      await targetOf(orgId, type, targetId);
      const items = await store.reviewComments.listForTarget(orgId, type, targetId);
      return { items, open_threads: items.filter((c) => c.parent_id === null && !c.resolved).length };
    },

    get: mustGet,

    async create(orgId: string, input: ReviewCommentCreateInput, by: Commenter): Promise<ReviewComment> {
      const target = await targetOf(orgId, input.target_type, input.target_id);
      if (input.test_id !== undefined) {
        if (input.target_type !== 'run') throw validationFailed([{ path: 'test_id', message: 'only a comment on a run names a test' }]);
        if (!target.testIds?.has(input.test_id)) throw validationFailed([{ path: 'test_id', message: 'not a test of this run' }]);
      }
      let testId = input.test_id ?? null;
      if (input.parent_id !== undefined) {
        const parent = await store.reviewComments.get(orgId, input.parent_id);
        if (!parent || parent.target_type !== input.target_type || parent.target_id !== input.target_id) {
          throw validationFailed([{ path: 'parent_id', message: 'no thread with this id on this target' }]);
        }
        if (parent.parent_id !== null) throw validationFailed([{ path: 'parent_id', message: 'answer the thread (its first comment), not an answer in it' }]);
        if (input.test_id !== undefined && input.test_id !== parent.test_id) throw validationFailed([{ path: 'test_id', message: 'an answer is about what its thread is about' }]);
        testId = parent.test_id;
      }
      const existing = await store.reviewComments.listForTarget(orgId, input.target_type, input.target_id);
      if (existing.length >= MAX_COMMENTS_PER_TARGET) {
        throw new AppError('CONFLICT', `this ${TARGET_NAMES[input.target_type]} has ${MAX_COMMENTS_PER_TARGET} comments, the most one keeps: resolve and delete old threads first`, { limit: MAX_COMMENTS_PER_TARGET });
      }
      return store.reviewComments.create(orgId, {
        target_type: input.target_type,
        target_id: input.target_id,
        project_id: target.project_id,
        test_id: testId,
        parent_id: input.parent_id ?? null,
        body: input.body,
        author: by.actor,
        author_email: by.email,
      });
    },

    /** The author edits the text; any member resolves or reopens a thread (on its first comment). */
    async update(orgId: string, id: string, patch: ReviewCommentUpdateInput, by: Commenter): Promise<ReviewComment> {
      const current = await mustGet(orgId, id);
      const set: Partial<ReviewComment> = {};
      const now = store.reviewComments.now();
      if (patch.body !== undefined && patch.body !== current.body) {
        if (current.author !== by.actor) throw forbidden('only its author edits a comment');
        // A deleted thread starter stays only so its answers read in context; it can still be resolved.
        if (current.deleted_at) throw conflict('the comment was deleted: its text cannot be edited');
        Object.assign(set, { body: patch.body, edited_at: now });
      }
      if (patch.resolved !== undefined && patch.resolved !== current.resolved) {
        if (current.parent_id !== null) throw validationFailed([{ path: 'resolved', message: "a thread is resolved on its first comment, not on an answer" }]);
        Object.assign(set, patch.resolved ? { resolved: true, resolved_by: by.actor, resolved_at: now } : { resolved: false, resolved_by: null, resolved_at: null });
      }
      if (Object.keys(set).length === 0) return current;
      try {
        return await store.reviewComments.update(orgId, current, set);
      } catch (err) {
        throw changedMeanwhile(err);
      }
    },

    /**
     * The author or an admin deletes. A thread's first comment with answers left keeps its
     * place with its text removed (the answers still read in context); deleting the last
     * answer under such a comment removes it too.
     */
    async delete(orgId: string, id: string, by: Commenter): Promise<ReviewComment> {
      const current = await mustGet(orgId, id);
      if (current.deleted_at) throw notFound('comment');
      if (current.author !== by.actor && !by.admin) throw forbidden("only its author or an admin deletes a comment");
      const onTarget = await store.reviewComments.listForTarget(orgId, current.target_type, current.target_id);
      if (current.parent_id === null) {
        const answers = onTarget.filter((c) => c.parent_id === current.id);
        if (answers.length > 0) {
          try {
            await store.reviewComments.update(orgId, current, { body: '', deleted_at: store.reviewComments.now() });
          } catch (err) {
            throw changedMeanwhile(err);
          }
          return current;
        }
        await store.reviewComments.delete(orgId, [current.id]);
        return current;
      }
      const thread = onTarget.find((c) => c.id === current.parent_id);
      const othersLeft = onTarget.some((c) => c.parent_id === current.parent_id && c.id !== current.id);
      await store.reviewComments.delete(orgId, thread?.deleted_at && !othersLeft ? [current.id, thread.id] : [current.id]);
      return current;
    },
  };
}
