import type { FieldIssue } from '../errors.ts';
import { toFieldIssues } from '../contracts/parse.ts';
import { ProjectRunSettings } from '../run-graph/contracts.ts';
import { healingSettings } from '../healing/service/settings.ts';

/**
 * What is wrong with a project's `config`, checked when it is written: the run settings
 * (max_concurrency, retries, approval_timeout_seconds …) and `healing` (threshold,
 * max_retries, enabled), each named `config.<field>`. Before, a bad value was stored with
 * a 200 and then refused every run of the project (or, under `healing`, ignored); other
 * keys are the project's own and are kept as given.
 */
export function projectConfigIssues(config: Record<string, unknown>): FieldIssue[] {
  const run = ProjectRunSettings.safeParse(config);
  const issues = run.success ? [] : toFieldIssues(run.error).map((i) => ({ ...i, path: `config.${i.path}` }));
  for (const text of healingSettings(config).ignored) {
    const [path, ...why] = text.split(': ');
    issues.push({ path: path!, message: why.join(': ') });
  }
  return issues;
}
