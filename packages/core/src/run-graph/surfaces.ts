import type { Surface } from '../intelligence/analysis/types.ts';
import type { TestRecord } from '../store/tests.ts';

/**
 * The two kinds of entries analyze_code writes to `testable_surfaces`: the stored tests
 * the run will execute (`kind: "stored_test"`) and what the code analyser found in the
 * codebase (`kind: "code"`, with the analyser's own kind in `surface_kind`). plan_tests
 * reads both back through these helpers.
 */
export interface StoredTestSurface {
  kind: 'stored_test';
  test_id: string;
  name: string;
  type: string;
  priority: string;
  tags: string[];
}

export interface CodeSurface {
  kind: 'code';
  surface_kind: Surface['kind'];
  method: string;
  path: string;
  file: string;
  line: number;
  framework: string;
  name?: string;
}

/** Code surfaces kept in the state at most; the summary gives the full count. */
export const MAX_STATE_CODE_SURFACES = 500;

export const storedTestSurface = (t: TestRecord): StoredTestSurface => ({ kind: 'stored_test', test_id: t.id, name: t.name, type: t.type, priority: t.priority, tags: t.tags });

export const codeSurface = (s: Surface): CodeSurface => ({
  kind: 'code', surface_kind: s.kind, method: s.method, path: s.path, file: s.file, line: s.line, framework: s.framework, ...(s.name ? { name: s.name } : {}),
});

/** Stored test ids of the surfaces, in order. Entries without a kind predate code analysis and are stored tests. */
export function storedTestIds(surfaces: ReadonlyArray<Record<string, unknown>>): string[] {
  return surfaces.filter((s) => (s.kind === 'stored_test' || s.kind === undefined) && s.test_id !== undefined).map((s) => String(s.test_id));
}

export function codeSurfaces(surfaces: ReadonlyArray<Record<string, unknown>>): CodeSurface[] {
  return surfaces.filter((s): s is Record<string, unknown> & CodeSurface => s.kind === 'code' && typeof s.method === 'string' && typeof s.path === 'string') as CodeSurface[];
}
