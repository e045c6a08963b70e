/**
 * S3Blobs on the wire: what it asks S3 for and how it reads S3's answers, against the
 * S3 double (test/support/s3-double.ts). The behaviour every Blobs adapter shares is in
 * test/conformance/blobs-s3.test.ts; this file covers what is S3's own (pages, error
 * codes, headers), and checks the double answers in S3's format.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { NoSuchBucket, S3ServiceException } from '@aws-sdk/client-s3';
import { S3Blobs } from '../../packages/functions/src/aws/s3-blobs.ts';
import { startS3Double, type S3Double } from '../support/s3-double.ts';

const BUCKET = 'svc-artifacts';
let s3: S3Double;
let blobs: S3Blobs;

beforeAll(async () => {
  s3 = await startS3Double({ buckets: [BUCKET], pageSize: 2 });
  blobs = new S3Blobs({ bucket: BUCKET, client: s3.client() });
});
afterAll(async () => {
  await s3?.stop();
});
beforeEach(() => {
  s3.objects().clear();
  s3.requests.length = 0;
});

const ops = (operation: string) => s3.requests.filter((r) => r.operation === operation);

describe('S3Blobs', () => {
  it('writes the object with its Content-Type and an integrity checksum', async () => {
    await blobs.put('reports/r1/index.html', '<p>ok</p>', 'text/html; charset=utf-8');
    const [put] = ops('PutObject');
    expect(put).toMatchObject({ method: 'PUT', bucket: BUCKET, key: 'reports/r1/index.html', status: 200 });
    expect(put!.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(put!.headers['x-amz-checksum-crc32']).toBeDefined();
    const stored = s3.objects().get('reports/r1/index.html')!;
    expect(stored.body.toString('utf8')).toBe('<p>ok</p>');
    expect(stored.contentType).toBe('text/html; charset=utf-8');
  });

  it('reads a missing key (404 NoSuchKey) as undefined', async () => {
    expect(await blobs.get('missing.png')).toBeUndefined();
    expect(ops('GetObject').map((r) => r.status)).toEqual([404]);
  });

  it('does not mistake other errors for an absent key', async () => {
    const elsewhere = new S3Blobs({ bucket: 'no-such-bucket', client: s3.client() });
    const error = await elsewhere.get('a.png').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NoSuchBucket);
    expect((error as S3ServiceException).$metadata.httpStatusCode).toBe(404);
    await expect(elsewhere.put('a.png', 'x')).rejects.toBeInstanceOf(S3ServiceException);
    await expect(elsewhere.list('')).rejects.toThrow(/bucket does not exist/);
  });

  it('follows ListObjectsV2 pages to the end, asking S3 to filter by prefix', async () => {
    for (const key of ['runs/r1/e', 'runs/r1/a', 'runs/r1/c', 'runs/r1/b', 'runs/r1/d', 'runs/r2/a']) {
      await blobs.put(key, key, 'text/plain');
    }
    expect(await blobs.list('runs/r1/')).toEqual(['runs/r1/a', 'runs/r1/b', 'runs/r1/c', 'runs/r1/d', 'runs/r1/e']);
    const lists = ops('ListObjectsV2');
    expect(lists).toHaveLength(3); // pages of 2, 2 and 1
    expect(lists.map((r) => r.query.prefix)).toEqual(['runs/r1/', 'runs/r1/', 'runs/r1/']);
    expect(lists[0]!.query['continuation-token']).toBeUndefined();
    expect(lists[1]!.query['continuation-token']).toBeDefined();
    expect(lists[2]!.query['continuation-token']).not.toBe(lists[1]!.query['continuation-token']);
  });

  it('lists the whole bucket for the empty prefix without sending one', async () => {
    await blobs.put('a', 'a');
    expect(await blobs.list('')).toEqual(['a']);
    expect(ops('ListObjectsV2')[0]!.query.prefix).toBeUndefined();
  });

  it('returns keys in JavaScript string order, like every Blobs adapter', async () => {
    // UTF-8 byte order (S3's) puts U+FF5E before U+1F642; UTF-16 order puts it after.
    const keys = ['k/\u{1F642}', 'k/\uFF5E', 'k/a'];
    for (const key of keys) await blobs.put(key, key);
    expect(await blobs.list('k/')).toEqual([...keys].sort());
  });

  it('deletes with DeleteObject, also for a key that is not there', async () => {
    await blobs.put('gone.txt', 'x');
    await blobs.delete('gone.txt');
    await blobs.delete('gone.txt');
    expect(ops('DeleteObject').map((r) => r.status)).toEqual([204, 204]);
    expect(s3.objects().has('gone.txt')).toBe(false);
  });

  it('rejects a body that does not match the checksum S3 returns for it', async () => {
    await blobs.put('screens/a.png', new Uint8Array([1, 2, 3, 4]), 'image/png');
    s3.objects().get('screens/a.png')!.body = Buffer.from([1, 2, 3, 5]); // bit rot in storage
    await expect(blobs.get('screens/a.png')).rejects.toThrow(/checksum/i);
  });
});

describe('the S3 double speaks S3', () => {
  const signed = { authorization: 'AWS4-HMAC-SHA256 Credential=test/20250101/us-east-1/s3/aws4_request, SignedHeaders=host, Signature=0' };
  const url = (path: string) => `${s3.endpoint}/${BUCKET}/${path}`;

  it('answers a missing key with 404 and the NoSuchKey XML error body', async () => {
    const res = await fetch(url('no/such.key'), { headers: signed });
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toBe('application/xml');
    expect(res.headers.get('x-amz-request-id')).toMatch(/^[0-9A-F]{16}$/);
    const body = await res.text();
    expect(body).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?>\n<Error><Code>NoSuchKey<\/Code>/);
    expect(body).toContain('<Message>The specified key does not exist.</Message>');
    expect(body).toContain('<Key>no/such.key</Key>');
  });

  it('pages ListObjectsV2 with IsTruncated and NextContinuationToken', async () => {
    for (const key of ['p/1', 'p/2', 'p/3']) s3.objects().set(key, { body: Buffer.from(key), contentType: 'text/plain', checksums: {}, etag: '"e"', lastModified: new Date(0) });
    const first = await (await fetch(`${s3.endpoint}/${BUCKET}?list-type=2&prefix=p%2F`, { headers: signed })).text();
    expect(first).toContain('<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">');
    expect(first).toContain('<KeyCount>2</KeyCount><MaxKeys>1000</MaxKeys><IsTruncated>true</IsTruncated>');
    expect(first).toContain('<Contents><Key>p/1</Key>');
    const token = /<NextContinuationToken>([^<]+)<\/NextContinuationToken>/.exec(first)![1]!;
    const second = await (await fetch(`${s3.endpoint}/${BUCKET}?list-type=2&prefix=p%2F&continuation-token=${encodeURIComponent(token)}`, { headers: signed })).text();
    expect(second).toContain('<IsTruncated>false</IsTruncated><Contents><Key>p/3</Key>');
    expect(second).toContain(`<ContinuationToken>${token}</ContinuationToken>`);
    expect(second).not.toContain('<NextContinuationToken>');
    const bad = await fetch(`${s3.endpoint}/${BUCKET}?list-type=2&continuation-token=bogus`, { headers: signed });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain('<Code>InvalidArgument</Code>');
  });

  it('refuses unsigned requests, bad checksums and operations it does not implement', async () => {
    expect((await fetch(url('a'))).status).toBe(403);
    const sha = createHash('sha256').update('body').digest('hex');
    const badCrc = await fetch(url('a'), { method: 'PUT', body: 'body', headers: { ...signed, 'x-amz-content-sha256': sha, 'x-amz-checksum-crc32': 'AAAAAA==' } });
    expect(badCrc.status).toBe(400);
    expect(await badCrc.text()).toContain('<Code>BadDigest</Code>');
    const badSha = await fetch(url('a'), { method: 'PUT', body: 'body', headers: { ...signed, 'x-amz-content-sha256': '0'.repeat(64) } });
    expect(await badSha.text()).toContain('<Code>XAmzContentSHA256Mismatch</Code>');
    expect((await fetch(url('a'), { method: 'HEAD', headers: signed })).status).toBe(501);
    expect((await fetch(`${s3.endpoint}/${BUCKET}?list-type=2&delimiter=%2F`, { headers: signed })).status).toBe(501);
    expect((await fetch(url('a'), { headers: { ...signed, range: 'bytes=0-1' } })).status).toBe(501);
    expect(s3.objects().size).toBe(0);
  });
});
