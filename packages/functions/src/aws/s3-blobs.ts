/**
 * The Blobs port on Amazon S3: one object per key in the artifacts bucket, the content
 * type kept as the object's Content-Type.
 */
import {
  DeleteObjectCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  NoSuchKey,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import type { BlobEntry, Blobs } from '@svc/core/ports/blobs';

export interface S3BlobsOptions {
  bucket: string;
  client: S3Client;
}

export class S3Blobs implements Blobs {
  private readonly bucket: string;
  private readonly client: S3Client;

  constructor(options: S3BlobsOptions) {
    this.bucket = options.bucket;
    this.client = options.client;
  }

  async put(key: string, body: Uint8Array | string, contentType?: string): Promise<void> {
    await this.client.send(
      new PutObjectCommand({
        Bucket: this.bucket,
        Key: key,
        Body: typeof body === 'string' ? new TextEncoder().encode(body) : body,
        ...(contentType ? { ContentType: contentType } : {}),
      }),
    );
  }

  async get(key: string): Promise<{ body: Uint8Array; contentType?: string } | undefined> {
    try {
      const out = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
      const body = out.Body ? await out.Body.transformToByteArray() : new Uint8Array();
      return { body, ...(out.ContentType ? { contentType: out.ContentType } : {}) };
    } catch (error) {
      // NoSuchKey is the only "absent"; a missing bucket or a denied read is an error.
      if (error instanceof NoSuchKey || (error as Error).name === 'NoSuchKey') return undefined;
      throw error;
    }
  }

  /** S3 answers 204 whether or not the key existed, so deleting is idempotent. */
  async delete(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
  }

  /** Every key under the prefix, sorted like FsBlobs' keys. */
  async list(prefix: string): Promise<string[]> {
    return (await this.listModified(prefix)).map((e) => e.key);
  }

  /** Every object under the prefix with its LastModified, following S3's pages to the end. */
  async listModified(prefix: string): Promise<BlobEntry[]> {
    const entries: BlobEntry[] = [];
    let token: string | undefined;
    do {
      const page = await this.client.send(
        new ListObjectsV2Command({
          Bucket: this.bucket,
          ...(prefix ? { Prefix: prefix } : {}),
          ...(token ? { ContinuationToken: token } : {}),
        }),
      );
      for (const object of page.Contents ?? []) {
        if (object.Key !== undefined) entries.push({ key: object.Key, modified: (object.LastModified ?? new Date(0)).toISOString() });
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
      if (page.IsTruncated && !token) throw new Error('S3 ListObjectsV2: truncated page without a continuation token');
    } while (token);
    // S3 lists in UTF-8 byte order, which differs from JavaScript's for some characters.
    return entries.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }
}
