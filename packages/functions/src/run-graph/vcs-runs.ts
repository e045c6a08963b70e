import { RunStartInput } from '@svc/core/run-graph/contracts';
import type { StartVcsRun } from '@svc/core/services/vcs-webhooks';
import type { RunManager } from './run-manager.ts';

/**
 * A webhook's runs go through the run graph like any other — locally the interpreter, on
 * AWS Step Functions, the start path of POST /api/v1/test/run — with trigger "vcs" (set
 * here, not accepted from API callers) and no user.
 */
export function vcsRunStarter(runGraph: RunManager): StartVcsRun {
  // The source names the host and repository, which API callers' `source` does not take: it goes beside the input.
  return async (orgId, { source, ...request }) => (await runGraph.start(orgId, null, RunStartInput.parse(request), 'vcs', source)).run;
}
