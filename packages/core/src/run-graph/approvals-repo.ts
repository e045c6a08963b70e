import { z } from 'zod';
import { IsoDateTime, JsonObject } from '../contracts/common.ts';
import type { Table } from '../ports/table.ts';
import { ConditionFailedError } from '../ports/table.ts';
import { stripLayout } from '../store/keys.ts';
import { queryPage, type Page } from '../store/context.ts';
import { runGraphKeys as k } from '../store/run-graph-keys.ts';
import { ApprovalDecision } from './state.ts';

/** A stored approval request: the interrupt, its task token and, once decided, the decision. */
export const ApprovalSchema = z.object({
  approval_id: z.string().describe('Approval id'),
  organization_id: z.string(),
  project_id: z.string(),
  thread_id: z.string().describe('Thread that is waiting'),
  run_id: z.string(),
  node: z.enum(['execute_test', 'self_heal']).describe('Node interrupted before it runs (execute_test) or before it applies a fix (self_heal)'),
  test_id: z.string().nullable().describe('Test whose fix awaits approval (self_heal), or null'),
  interrupt_key: z.string(),
  status: z.enum(['pending', ...ApprovalDecision.options]).describe('pending, approved, modified, rejected, expired or cancelled'),
  reason: z.string().describe('Why the run waits'),
  checkpoint_id: z.string().describe('Checkpoint saved at the interrupt'),
  proposal: JsonObject.nullable().describe('What is to be approved: the plan summary or the proposed fix'),
  requested_at: IsoDateTime,
  expires_at: IsoDateTime.describe('When the approval times out (treated as a reject)'),
  decided_at: IsoDateTime.nullable(),
  decided_by: z.string().nullable(),
  comment: z.string().nullable(),
});
export type Approval = z.output<typeof ApprovalSchema>;

/**
 * Approval records. Pending ones sit on two sparse indexes — per organization (the
 * pending list) and globally by expiry (the sweeper) — and leave both when decided.
 * The task token is stored on the item but never returned by the API.
 */
export function approvalsRepo(table: Table) {
  const read = (item: Record<string, unknown>) => {
    const { task_token: _t, ...rest } = stripLayout<Approval & { task_token?: string }>(item);
    return rest;
  };
  return {
    async create(approval: Approval, taskToken: string): Promise<boolean> {
      try {
        await table.put(
          {
            ...k.approval(approval.organization_id, approval.approval_id),
            entity: 'approval',
            gsi1pk: k.pendingApprovalsOfOrg(approval.organization_id),
            gsi1sk: approval.approval_id,
            gsi2pk: k.pendingApprovals,
            gsi2sk: `${approval.expires_at}#${approval.approval_id}`,
            ...approval,
            task_token: taskToken,
          },
          { kind: 'notExists' },
        );
        return true;
      } catch (err) {
        if (err instanceof ConditionFailedError) return false;
        throw err;
      }
    },

    async get(orgId: string, approvalId: string): Promise<(Approval & { task_token: string }) | undefined> {
      const item = await table.get(k.approval(orgId, approvalId));
      return item ? (stripLayout<Approval & { task_token: string }>(item)) : undefined;
    },

    async setToken(orgId: string, approvalId: string, taskToken: string): Promise<void> {
      await table.update({ key: k.approval(orgId, approvalId), set: { task_token: taskToken }, condition: { kind: 'equals', attr: 'status', value: 'pending' } }).catch((err) => {
        if (!(err instanceof ConditionFailedError)) throw err;
      });
    },

    /** Decides a pending approval; false when it was no longer pending. */
    async decide(orgId: string, approvalId: string, patch: Pick<Approval, 'status' | 'decided_at' | 'decided_by' | 'comment'>): Promise<(Approval & { task_token: string }) | false> {
      try {
        const item = await table.update({
          key: k.approval(orgId, approvalId),
          set: patch,
          remove: ['gsi1pk', 'gsi1sk', 'gsi2pk', 'gsi2sk'],
          condition: { kind: 'equals', attr: 'status', value: 'pending' },
        });
        return stripLayout<Approval & { task_token: string }>(item);
      } catch (err) {
        if (err instanceof ConditionFailedError) return false;
        throw err;
      }
    },

    async pending(orgId: string, limit: number, cursor?: string): Promise<Page<Approval>> {
      const page = await queryPage<Record<string, unknown>>(table, { index: 'gsi1', pk: k.pendingApprovalsOfOrg(orgId), limit, cursor });
      return { items: page.items.map(read), next_cursor: page.next_cursor };
    },

    /** Pending approvals whose expiry is at or before `at`, oldest first. */
    async due(at: string, limit = 100): Promise<Approval[]> {
      const page = await table.query({ index: 'gsi2', pk: k.pendingApprovals, skTo: `${at}#~`, limit });
      return page.items.map(read);
    },
  };
}

export type ApprovalsRepo = ReturnType<typeof approvalsRepo>;
