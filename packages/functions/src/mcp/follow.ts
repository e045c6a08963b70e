import { isTerminalRunStatus, type TestRunStatus } from '@svc/core/contracts/test-run';
import { validationFailed } from '@svc/core/errors';
import type { GatewayTool } from '@svc/core/mcp/catalogue';
import { fillPathParams } from '@svc/core/openapi/route';
import { sleep } from '../shared/sleep.ts';

/**
 * A tool that starts a run can wait for it (`wait_seconds`): the gateway then follows the
 * run through its status route, as an assistant would with svc_run_status, and answers
 * once with the final status. One call runs the tests and says how they went.
 */

/** Bounded below the API function's timeout; a longer run is followed with svc_run_status. */
export const MAX_WAIT_SECONDS = 300;
const POLL_MS = 500;

export const WAIT_SECONDS_SCHEMA = {
  type: 'integer',
  minimum: 0,
  maximum: MAX_WAIT_SECONDS,
  description: `Wait up to this many seconds (at most ${MAX_WAIT_SECONDS}) for the run to finish, and answer with its final status and totals; default 0: answer at once with the run id. Keep it under your client's request timeout (often 60 s): a call that times out loses the run id, so for long runs wait 50 or less and follow with svc_run_status`,
};

/** Takes `wait_seconds` out of a following tool's arguments (it is the gateway's, not the route's). */
export function takeWaitSeconds(tool: GatewayTool, args: Record<string, unknown> | undefined): { waitSeconds: number; rest: Record<string, unknown> | undefined } {
  if (!tool.follow || !args || !('wait_seconds' in args)) return { waitSeconds: 0, rest: args };
  const { wait_seconds: raw, ...rest } = args;
  if (typeof raw !== 'number' || !Number.isInteger(raw) || raw < 0 || raw > MAX_WAIT_SECONDS) {
    throw validationFailed([{ path: 'wait_seconds', message: `must be a whole number of seconds from 0 to ${MAX_WAIT_SECONDS}` }]);
  }
  return { waitSeconds: raw, rest };
}

/** The value at a dotted path (`run.id`) of a JSON body. */
function valueAt(body: unknown, path: string): unknown {
  return path.split('.').reduce<unknown>((v, key) => (v && typeof v === 'object' ? (v as Record<string, unknown>)[key] : undefined), body);
}

export type FollowOutcome =
  /** awaiting-approval: the run waits for a person's decision, so waiting longer changes nothing. */
  | { kind: 'finished' | 'still-running' | 'awaiting-approval'; status: unknown; id: string; request: Request }
  /** A status request failed: its response is the answer. */
  | { kind: 'failed'; response: Response; request: Request };

/**
 * Follows what `started` (the start route's JSON body) started until its status is
 * terminal, `waitSeconds` pass, or the caller gives up (signal).
 */
export async function followRun(o: {
  follow: NonNullable<GatewayTool['follow']>;
  started: unknown;
  waitSeconds: number;
  statusRequest: (path: string) => Request;
  forward: (request: Request) => Promise<Response>;
  signal?: AbortSignal;
}): Promise<FollowOutcome> {
  const id = String(valueAt(o.started, o.follow.idField));
  const path = fillPathParams(o.follow.statusPath, () => id);
  const until = Date.now() + o.waitSeconds * 1000;
  for (;;) {
    const request = o.statusRequest(path);
    const response = await o.forward(request);
    if (response.status >= 400) return { kind: 'failed', response, request };
    const status = await response.json();
    const runStatus = valueAt(status, 'run.status') as TestRunStatus;
    if (isTerminalRunStatus(runStatus)) return { kind: 'finished', status, id, request };
    // A run parked for approval does not move until someone decides: waiting out wait_seconds only blocked the
    // assistant (past its client's timeout, losing the run id) to then say "not finished" (found by QA).
    if (runStatus === 'awaiting_approval') return { kind: 'awaiting-approval', status, id, request };
    if (Date.now() + POLL_MS > until || o.signal?.aborted) return { kind: 'still-running', status, id, request };
    await sleep(POLL_MS, o.signal);
  }
}
