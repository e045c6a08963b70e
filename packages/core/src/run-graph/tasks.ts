import { z } from 'zod';
import type { GraphDeps } from './deps.ts';
import { analyzeCode } from './analyze-code.ts';
import { planOutput, planTests } from './plan-tests.ts';
import { executeTest } from './execute-test.ts';
import { selfHeal } from './self-heal.ts';
import { report } from './report.ts';
import { approvalService, decisionOutput, type ApprovalRequest, type DecisionOutput } from './approvals.ts';

/**
 * The run graph's Task states as functions of their JSON input — one per Task resource
 * of asl/run-graph.asl.json. The Lambda handlers (AWS) and the local interpreter binding
 * both call these, so the two runtimes share every line of node logic. Inputs are small
 * (thread and test ids): the state itself lives in the checkpoints.
 */
export const ThreadInput = z.looseObject({ thread_id: z.string().min(1) });
export const TestInput = z.looseObject({ thread_id: z.string().min(1), test_id: z.string().min(1) });
export const ApprovalTaskInput = z.looseObject({
  thread_id: z.string().min(1),
  node: z.enum(['execute_test', 'self_heal']),
  test_id: z.string().nullable().optional(),
  task_token: z.string().min(1),
});
export const ExpiredTaskInput = z.looseObject({ thread_id: z.string().min(1), node: z.enum(['execute_test', 'self_heal']), test_id: z.string().nullable().optional() });
export const ReportInput = z.looseObject({ thread_id: z.string().min(1), error: z.looseObject({ Error: z.string().optional(), Cause: z.unknown().optional() }).optional() });

export const taskResources = ['analyze_code', 'plan_tests', 'execute_test', 'self_heal', 'request_approval', 'approval_expired', 'report'] as const;
export type TaskResource = (typeof taskResources)[number];

export function createGraphTasks(deps: GraphDeps) {
  const approvals = approvalService(deps);
  return {
    approvals,

    async analyze_code(raw: unknown) {
      const { thread_id } = ThreadInput.parse(raw);
      const { route } = await analyzeCode(deps, thread_id);
      return { thread_id, route };
    },

    async plan_tests(raw: unknown) {
      const { thread_id } = ThreadInput.parse(raw);
      const { route, state } = await planTests(deps, thread_id);
      return { thread_id, route, ...planOutput(state) };
    },

    async execute_test(raw: unknown) {
      const { thread_id, test_id } = TestInput.parse(raw);
      const { route } = await executeTest(deps, thread_id, test_id);
      return { thread_id, test_id, route };
    },

    async self_heal(raw: unknown) {
      const { thread_id, test_id } = TestInput.parse(raw);
      const { route } = await selfHeal(deps, thread_id, test_id);
      return { thread_id, test_id, route };
    },

    /** Interrupts: records the approval with the task token; decided → the decision at once. */
    async request_approval(raw: unknown): Promise<ApprovalRequest> {
      const input = ApprovalTaskInput.parse(raw);
      return approvals.request(input.thread_id, input.node, input.test_id ?? null, input.task_token);
    },

    /** The Task state's own timeout fired (a backstop to the approval's expiry): expire it. */
    async approval_expired(raw: unknown): Promise<DecisionOutput> {
      const input = ExpiredTaskInput.parse(raw);
      const owner = await deps.threads.owner(input.thread_id);
      const { state } = await deps.checkpointer.load(input.thread_id);
      const pending = state.graph.approvals.find((a) => a.status === 'pending' && a.node === input.node && (input.node === 'execute_test' || a.test_id === input.test_id));
      if (pending && owner) return (await approvals.decide(owner.organization_id, input.thread_id, 'expired', { approvalId: pending.approval_id, by: null })).output;
      const last = [...state.graph.approvals].reverse().find((a) => a.node === input.node && (input.node === 'execute_test' || a.test_id === input.test_id));
      if (!last) throw new Error(`thread ${input.thread_id} has no approval for ${input.node}`);
      return decisionOutput(state, last);
    },

    async report(raw: unknown) {
      const input = ReportInput.parse(raw);
      const error = input.error ? `${input.error.Error ?? 'Error'}: ${typeof input.error.Cause === 'string' ? input.error.Cause : JSON.stringify(input.error.Cause)}` : undefined;
      const { status } = await report(deps, input.thread_id, { error });
      return { thread_id: input.thread_id, status };
    },
  };
}

export type GraphTasks = ReturnType<typeof createGraphTasks>;
