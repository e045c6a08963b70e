/**
 * S3Blobs against the shared Blobs conformance suite, over the S3 wire-format double
 * (test/support/s3-double.ts). The double returns small ListObjectsV2 pages, so listing
 * always crosses page boundaries.
 */
import { afterAll, beforeAll } from 'vitest';
import { S3Blobs } from '../../packages/functions/src/aws/s3-blobs.ts';
import { startS3Double, type S3Double } from '../support/s3-double.ts';
import { blobsConformance } from './blobs.conformance.ts';

let s3: S3Double;

beforeAll(async () => {
  s3 = await startS3Double({ buckets: ['svc-artifacts'], pageSize: 5 });
});
afterAll(async () => {
  await s3?.stop();
});

blobsConformance('S3Blobs (S3 double, pages of 5 keys)', async () => {
  const objects = s3.objects('svc-artifacts');
  objects.clear();
  return {
    blobs: new S3Blobs({ bucket: 'svc-artifacts', client: s3.client() }),
    cleanup: async () => objects.clear(),
  };
});
