import { z } from 'zod';
import type { Hono } from 'hono';
import { listResponse, ListQuery } from '@svc/core/contracts/common';
import { ApprovalDecisionBody, ApprovalModifyBody } from '@svc/core/run-graph/contracts';
import { ApprovalSchema } from '@svc/core/run-graph/approvals-repo';
import { ApprovalEntrySchema } from '@svc/core/run-graph/state';
import type { ApiEnv } from '../env.ts';
import { mountRoute, type RouteDef } from '../route.ts';
import { runGraphOf, userOf, type RunGraphAppDeps } from './runs.ts';

// A run id is accepted as well as its thread's id or name (the approval service resolves it): a caller
// holding only svc_test's run.id could not decide a run on a named thread.
const ThreadParams = z.strictObject({ thread_id: z.string().min(1).max(200).describe('The waiting run\'s thread_id, or its run id') });
const DecisionResponse = z.object({ approval: ApprovalEntrySchema, thread_id: z.string(), decision: z.string() });

/**
 * Approvals (spec "Approval workflow"): list what waits, approve (resume unchanged),
 * modify (resume with the validated modified state), reject (skip the node). Deciding a
 * thread that is not waiting, or deciding twice, is a 409 that changes nothing.
 */
export function approvalRoutes(app: Hono<ApiEnv>, deps: RunGraphAppDeps, registry: RouteDef[]) {
  mountRoute(app, deps, registry, {
    method: 'get', path: '/api/v1/approvals/pending', summary: 'Pending approvals of the organization, oldest first', tags: ['approvals'], auth: 'viewer', query: ListQuery,
    responses: { 200: { description: 'pending approvals', schema: listResponse(ApprovalSchema) } },
  }, async ({ c, query, access }) => {
    const g = runGraphOf(deps);
    return c.json(await g.deps.approvals.pending(access.organizationId, query.limit, query.cursor));
  });

  for (const decision of ['approve', 'reject'] as const) {
    mountRoute(app, deps, registry, {
      method: 'post', path: `/api/v1/approvals/:thread_id/${decision}`,
      summary: decision === 'approve' ? 'Approve and resume with the state unchanged' : 'Reject: the interrupted node is skipped (plan: no test runs; fix: not applied, the test stays failed)',
      tags: ['approvals'], auth: 'member', params: ThreadParams, body: ApprovalDecisionBody,
      responses: { 200: { description: 'decided; the run resumes', schema: DecisionResponse }, 404: { description: 'no such run or thread in this organization' }, 409: { description: 'the thread is not waiting for approval' } },
    }, async ({ c, params, body, access, principal }) => {
      const g = runGraphOf(deps);
      const { approval, output, threadId } = await g.approvals.decide(access.organizationId, params.thread_id, decision === 'approve' ? 'approved' : 'rejected', { approvalId: body.approval_id, comment: body.comment, by: userOf(principal) });
      c.set('audit', { action: `approval.${decision}`, resource: `approval:${approval.approval_id}`, metadata: { thread_id: threadId, node: approval.node } });
      return c.json({ approval, thread_id: threadId, decision: output.decision });
    });
  }

  mountRoute(app, deps, registry, {
    method: 'post', path: '/api/v1/approvals/:thread_id/modify', summary: 'Modify the waiting run\'s state (validated) and resume with it', tags: ['approvals'], auth: 'member',
    params: z.strictObject({ thread_id: z.string().min(1).max(200).describe('The waiting run\'s thread_id or run id, or an approval id') }), body: ApprovalModifyBody,
    responses: { 200: { description: 'decided; the run resumes with the modified state', schema: DecisionResponse }, 400: { description: 'the modified state is not valid' }, 404: { description: 'no such run or thread in this organization' }, 409: { description: 'the thread is not waiting for approval' } },
  }, async ({ c, params, body, access, principal }) => {
    const g = runGraphOf(deps);
    // {thread_id} names the thread (or its run: the approval service resolves it); an approval id
    // is accepted too (it names the thread and the approval). Named {id} before; the URL is the same.
    let given = params.thread_id;
    let approvalId = body.approval_id;
    if (!(await g.deps.threads.ownedBy(access.organizationId, params.thread_id))) {
      const byId = await g.deps.approvals.get(access.organizationId, params.thread_id);
      if (byId) {
        given = byId.thread_id;
        approvalId ??= byId.approval_id;
      }
    }
    const { approval, output, threadId } = await g.approvals.decide(access.organizationId, given, 'modified', { approvalId, state: body.state, comment: body.comment, by: userOf(principal) });
    c.set('audit', { action: 'approval.modify', resource: `approval:${approval.approval_id}`, metadata: { thread_id: threadId, node: approval.node, fields: Object.keys(body.state) } });
    return c.json({ approval, thread_id: threadId, decision: output.decision });
  });
}
