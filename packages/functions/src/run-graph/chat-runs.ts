import { RunStartInput } from '@svc/core/run-graph/contracts';
import type { StartChatRun } from '@svc/core/services/chat-commands';
import type { RunManager } from './run-manager.ts';

/**
 * A slash command's runs go through the run graph like any other — locally the
 * interpreter, on AWS Step Functions, the start path of POST /api/v1/test/run — with
 * trigger "chat" (set here, not accepted from API callers) and no svc user (the Slack
 * user is in the audit log).
 */
export function chatRunStarter(runGraph: RunManager): StartChatRun {
  return async (orgId, request) => (await runGraph.start(orgId, null, RunStartInput.parse(request), 'chat')).run;
}
