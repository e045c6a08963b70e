import { z } from 'zod';

/** One artifact of a run, as `GET /api/runs/{id}/artifacts` lists it. */
export const RunArtifactSchema = z.object({
  name: z.string().describe("The artifact's name within the run: `<test folder>/<file>` (e.g. `0193…/trace.zip`)"),
  kind: z.enum(['trace', 'screenshot', 'visual', 'dom_snapshot']).describe('trace: the Playwright trace zip of a failed UI test; screenshot: a failure or on-demand screenshot; visual: a visual comparison image (baseline, actual or diff); dom_snapshot: the HTML of the page a UI test failed on (failure.html, always served as a download)'),
  test_id: z.string().describe('The test (or `<test id>[n]`, a parameter set\'s case) it belongs to'),
  test_name: z.string(),
  content_type: z.string().describe('What the download is served as: image/png, application/zip'),
  available: z.boolean().describe('Whether the bytes are still stored; false once the artifact retention (SVC_RUN_ARTIFACT_RETENTION_DAYS) has deleted them'),
  url: z.string().describe('Where to download it (same credentials as this request)'),
});

export const RunArtifactListSchema = z.object({
  run_id: z.string(),
  items: z.array(RunArtifactSchema),
});

/** `<test folder>/<file>` as two path segments: what the runner writes under a run's folder. */
const Segment = z.string().min(1).max(300).regex(/^[A-Za-z0-9._-]+$/, 'letters, digits, ".", "_" and "-" only').refine((s) => s !== '.' && s !== '..', 'not a folder reference');

export const RunArtifactParams = z.strictObject({
  id: z.string().min(1).max(200).describe('Run id (or thread id)'),
  folder: Segment.describe("The artifact's folder (the test's)"),
  file: Segment.describe("The artifact's file name"),
});
