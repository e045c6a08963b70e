import { RunStartInput } from '@svc/core/run-graph/contracts';
import type { StartAutomationRun } from '@svc/core/services/automation-webhooks';
import type { RunManager } from './run-manager.ts';

/**
 * An automation event's runs go through the run graph like any other — locally the
 * interpreter, on AWS Step Functions, the start path of POST /api/v1/test/run — with
 * trigger "automation" (set here, not accepted from API callers) and no svc user (the
 * integration is in the audit log).
 */
export function automationRunStarter(runGraph: RunManager): StartAutomationRun {
  return async (orgId, request) => (await runGraph.start(orgId, null, RunStartInput.parse(request), 'automation')).run;
}
