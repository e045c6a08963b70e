import { z } from 'zod';

/** `?base=` of GET /api/runs/{id}/compare: a run id (uuid) of the same project. */
export const RunCompareQuery = z.strictObject({
  base: z
    .string()
    .regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, 'a run id (uuid)')
    .optional()
    .describe('The run to compare with (same project). Default: for a run whose source is a pull request, the latest completed or failed push run of its target branch; for a run of a branch, that branch\'s latest; else (or when there is none) the latest completed or failed run of the project created before this one — among the latest few such runs, the newest that ran every test this run ran'),
});

/** How the base was chosen (GET /api/runs/{id}/compare `base_rule`). */
export const baseRules = ['named', 'pull_request_target', 'same_branch', 'previous_run'] as const;
export type BaseRule = (typeof baseRules)[number];

export const runChanges = ['new_failure', 'fixed', 'still_failing', 'new_test', 'removed', 'not_run', 'passing', 'skipped'] as const;
export type RunChange = (typeof runChanges)[number];

const SetRef = z.object({ index: z.number().int(), name: z.string() }).describe('The parameter set, for one case of a parameterised test');

export const RunCompareCaseSchema = z.object({
  test_id: z.string().describe('The test; with parameter_set, one case of it'),
  name: z.string(),
  parameter_set: SetRef.optional(),
  status: z.string().nullable().describe("This run's status of the case (its last attempt); null when removed or not run"),
  base_status: z.string().nullable().describe("The base run's status; null for a new test"),
  change: z.enum(runChanges).describe('new_failure: failed here, not in the base; fixed: passed or healed here, failed in the base; still_failing; new_test: not in the base; removed: in the base, not here, and the test is gone (deleted, or the set no longer exists); not_run: in the base, not here, but the test still exists (this run did not select it); passing: neither failed (healed counts as passing); skipped: skipped here'),
  quarantined: z.string().optional().describe('Why the test is quarantined (its failure does not fail the run)'),
  error: z.string().optional().describe("This run's error of a failed case"),
  duration_ms: z.number().nullable(),
  base_duration_ms: z.number().nullable(),
  duration_change_ratio: z.number().optional().describe('duration_ms / base_duration_ms, when both ran'),
});

export const RunCompareSchema = z.object({
  run_id: z.string(),
  base_run_id: z.string().nullable().describe('null: the project has no earlier finished run (every case is then a new test)'),
  base_rule: z.enum(baseRules).nullable().describe("How the base was chosen: named (?base=), pull_request_target (the latest push run of the pull request's target branch), same_branch (the branch's previous run), previous_run (the project's previous finished run); null when there is no base"),
  partial: z.boolean().describe('true while this run (or the base) has not finished: only the results recorded so far are compared'),
  summary: z.object({
    new_failures: z.number().int().describe('New failures of tests not in quarantine: what this change broke'),
    quarantined_new_failures: z.number().int().describe('New failures of quarantined tests (not in new_failures)'),
    fixed: z.number().int(),
    still_failing: z.number().int(),
    new_tests: z.number().int(),
    removed_tests: z.number().int().describe('Cases of the base whose test (or parameter set) no longer exists'),
    not_run: z.number().int().describe('Cases of the base this run did not run though their test still exists (a run of some tests)'),
    unchanged_passing: z.number().int(),
    skipped: z.number().int(),
    not_yet_run: z.number().int().describe('While partial: cases of the base this run has not reported yet (not counted as removed)'),
  }),
  cases: z.array(RunCompareCaseSchema).describe('Every case, new failures first'),
  slower: z.array(RunCompareCaseSchema).describe('Up to 5 cases at least 1.5× and 500 ms slower than in the base, slowest first'),
});
export type RunCompare = z.output<typeof RunCompareSchema>;
export type RunCompareCase = z.output<typeof RunCompareCaseSchema>;
