import { describe, expect, it } from 'vitest';
import { GATEWAY_TOOLS, isAgentTool } from './catalogue.ts';

describe('the persons\' decisions', () => {
  it('are exactly the tools that decide a run waiting for approval, and svc\'s own agent is offered none of them', () => {
    const decisions = GATEWAY_TOOLS.filter((t) => t.personsDecision).map((t) => t.name);
    expect(decisions.sort()).toEqual(['svc_approve_run', 'svc_modify_run', 'svc_reject_run']);
    expect(GATEWAY_TOOLS.filter(isAgentTool).map((t) => t.name)).not.toEqual(expect.arrayContaining(['svc_approve_run']));
    expect(GATEWAY_TOOLS.filter(isAgentTool).length).toBe(GATEWAY_TOOLS.length - decisions.length);
    // Every route under /api/v1/approvals/:thread_id/ decides: a new one must be flagged too.
    const approvalDecisionRoutes = GATEWAY_TOOLS.filter((t) => t.path.startsWith('/api/v1/approvals/:'));
    expect(approvalDecisionRoutes.every((t) => t.personsDecision && !t.readOnly)).toBe(true);
    // Reading what waits is no decision: the agent may tell its caller what needs them.
    expect(isAgentTool(GATEWAY_TOOLS.find((t) => t.name === 'svc_pending_approvals')!)).toBe(true);
  });
});
