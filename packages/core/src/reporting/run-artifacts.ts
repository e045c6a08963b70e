import type { RunSummary } from '../execution/types.ts';
import { screenshotKeys, visualKeys } from './format.ts';

export type RunArtifactKind = 'trace' | 'screenshot' | 'visual' | 'dom_snapshot';

export interface RunArtifactRef {
  /** Blob key, as the result recorded it. */
  key: string;
  kind: RunArtifactKind;
  /** The case the artifact belongs to (`<test id>[n]` for a parameter set). */
  test_id: string;
  test_name: string;
}

/**
 * Every artifact a run's results name — each case's latest attempt, as the report shows
 * it: the Playwright trace of a failed UI test, its page's HTML when it failed, its
 * screenshots (failure and on demand) and its visual comparison images. What a result does not name is not the run's to
 * serve, whatever else lies under its folder.
 */
export function runArtifactsOf(summary: RunSummary): RunArtifactRef[] {
  const refs = new Map<string, RunArtifactRef>();
  for (const r of summary.results) {
    const add = (key: string, kind: RunArtifactKind) => {
      if (!refs.has(key)) refs.set(key, { key, kind, test_id: r.test_id, test_name: r.name });
    };
    if (r.trace) add(r.trace, 'trace');
    if (r.dom_snapshot) add(r.dom_snapshot, 'dom_snapshot');
    for (const key of screenshotKeys(r)) add(key, 'screenshot');
    for (const key of visualKeys(r)) add(key, 'visual');
  }
  return [...refs.values()];
}

/** The content type an artifact is served with, from its name (what the runner writes). */
export function artifactContentType(name: string): string {
  if (name.endsWith('.png')) return 'image/png';
  if (name.endsWith('.zip')) return 'application/zip';
  return 'application/octet-stream';
}
