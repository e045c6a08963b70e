import { z } from 'zod';
import { IsoDateTime, JsonObject } from '../contracts/common.ts';

/**
 * Server-sent events of a run (spec "Streaming event payloads"). The `event:` field is
 * the type, `data:` the JSON payload, `id:` the event's position in the thread's log
 * (1, 2, 3 …), which is what Last-Event-ID replays from.
 */
const node = z.string().describe('Graph node: analyze_code, plan_tests, execute_test, self_heal or report');
const testId = z.string().nullable().optional().describe('Test the node worked on (execute_test, self_heal)');

export const runEventPayloads = {
  state_update: z.object({ state: JsonObject.describe('Full run state after the node') }),
  node_start: z.object({ node, timestamp: IsoDateTime, test_id: testId }),
  node_end: z.object({
    node,
    duration_ms: z.number().nonnegative(),
    test_id: testId,
    timestamp: IsoDateTime.optional().describe('When the node ended (latency measurements)'),
    status: z.enum(['cancelled', 'interrupted', 'failed']).optional().describe('Only when the node did not finish: cancelled (the run was cancelled while it ran), interrupted (the process running it stopped; the resumed run starts it again with a node_start of its own) or failed (the run stopped on an error, said by the error event that follows). Absent: the node finished'),
  }),
  log: z.object({ level: z.enum(['debug', 'info', 'warn', 'error']), message: z.string(), test_id: testId }),
  screenshot: z.object({ base64: z.string().describe('PNG, base64'), step: z.number().int().nonnegative(), test_id: testId }),
  dom_snapshot: z.object({
    html: z.string().describe('The page\'s HTML when the test failed, cut at 200,000 characters for the stream (the artifact keeps up to 2,000,000)'),
    url: z.string().describe('The page it is of'),
    step: z.number().int().nonnegative().nullable().describe('The failed step (0-based), or null when the test failed elsewhere'),
    test_id: testId,
    chars: z.number().int().nonnegative().describe('Characters of the HTML kept in the artifact'),
    truncated: z.boolean().describe('Whether the stream\'s copy was cut'),
    artifact: z.string().describe('The artifact\'s name: GET /api/runs/{id}/artifacts/{folder}/failure.html'),
  }),
  interrupt: z.object({
    node,
    reason: z.string(),
    approval_id: z.string(),
    test_id: testId,
    expires_at: IsoDateTime,
  }),
  resume: z.object({ node, decision: z.string().describe('approved, modified, rejected or expired'), approval_id: z.string(), test_id: testId, comment: z.string().nullable().optional() }),
  tool_call: z.object({
    tool: z.string().describe('What was called: a step type (request, click, sql …) or healer'),
    test_id: testId,
    input: z.string().describe('What it was asked, one line'),
    status: z.string().describe('passed, failed, skipped, healed, cannot_heal …'),
    duration_ms: z.number().nonnegative().optional(),
    error: z.string().optional(),
  }),
  complete: z.object({ summary: JsonObject.describe('status, totals, duration and the limit that stopped the run, if any') }),
  error: z.object({ error: z.string(), stack: z.string().optional() }),
} as const;

export type RunEventType = keyof typeof runEventPayloads;
export const runEventTypes = Object.keys(runEventPayloads) as RunEventType[];

export type RunEventInput = { [K in RunEventType]: { type: K; data: z.input<(typeof runEventPayloads)[K]> } }[RunEventType];

/** A stored event: the id is its sequence number in the thread. */
export interface RunEvent {
  id: number;
  type: RunEventType;
  data: Record<string, unknown>;
  created_at: string;
}

/** Events after which a run's stream has nothing more to say. */
export const terminalEventTypes: ReadonlySet<RunEventType> = new Set(['complete', 'error']);
