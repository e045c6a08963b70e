/**
 * FsBlobs (the local runtime's artifact folder) against the shared Blobs conformance suite.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FsBlobs } from '../../packages/functions/src/local/fs-blobs.ts';
import { blobsConformance } from './blobs.conformance.ts';

blobsConformance(
  'FsBlobs (folder)',
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-blobs-'));
    return {
      blobs: new FsBlobs(join(dir, 'blobs')),
      cleanup: () => rm(dir, { recursive: true, force: true }),
    };
  },
);
