import type { Blobs } from '@svc/core/ports/blobs';
import { fileSafe } from '@svc/core/file-safe';
import type { RunArtifacts } from '@svc/core/run-graph/deps';

/** Run artifacts in the Blobs store (S3 on AWS): keys `runs/<thread_id>/<name>`. */
export const RUN_ARTIFACTS_ROOT = 'runs/';

/** Where a run's artifacts are in Blobs: every key of the run starts with it. */
export const runArtifactPrefix = (threadId: string): string => `${RUN_ARTIFACTS_ROOT}${fileSafe(threadId)}/`;

export function blobArtifacts(blobs: Blobs, threadId: string): RunArtifacts {
  const prefix = runArtifactPrefix(threadId);
  return {
    async put(name, body, contentType) {
      if (name.split('/').some((p) => p === '..' || p === '')) throw new Error(`artifact name escapes the run's folder: ${name}`);
      await blobs.put(prefix + name, body, contentType);
      return prefix + name;
    },
    async read(key) {
      return (await blobs.get(key))?.body;
    },
  };
}
