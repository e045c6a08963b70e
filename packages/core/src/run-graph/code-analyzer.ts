import type { Analysis } from '../intelligence/analysis/types.ts';

/**
 * The analyze_code node's window on a codebase. Core never reads files: the functions
 * side decides whether a run's codebase is a folder this server may read (allow-listed
 * roots) and runs the analyser on it. "Not analysed" is an answer with a reason (no
 * repository, a remote one, outside the roots); a failure while reading or analysing
 * is thrown.
 */
export type CodeAnalysisOutcome =
  | { status: 'analyzed'; codebase: string; analysis: Analysis; partial: boolean }
  | { status: 'not_analyzed'; reason: string };

export interface CodeAnalyzer {
  analyze(input: { organizationId: string; projectId: string; codebasePath: string }): Promise<CodeAnalysisOutcome>;
}
