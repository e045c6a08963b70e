import { baselineClashIssues } from '@svc/core/contracts/steps';
import { validationFailed } from '@svc/core/errors';

/**
 * Two visual assertions of one test with one baseline would compare with each other's
 * screenshot: refused when the test is saved (400 naming the later one's `baseline`), as
 * `svc run` refuses the file, not only when a run finds it (found by QA).
 */
export function refuseBaselineClashes(t: Parameters<typeof baselineClashIssues>[0]): void {
  const issues = baselineClashIssues(t);
  if (issues.length) throw validationFailed(issues.map((i) => ({ path: i.path.join('.'), message: i.message })));
}
