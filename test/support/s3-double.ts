/**
 * A small S3 that speaks the REST wire format, for tests: a node:http server on
 * 127.0.0.1 that answers the four operations S3Blobs uses, path-style
 * (`http://127.0.0.1:<port>/<bucket>/<key>`), the way S3 answers them:
 *
 * - PutObject    PUT  /bucket/key       stores the body and Content-Type (S3's default
 *                                       `binary/octet-stream` when none is sent); checks
 *                                       x-amz-content-sha256, Content-MD5 and
 *                                       x-amz-checksum-{crc32,sha1,sha256} (header or
 *                                       aws-chunked trailer) → 400 on a mismatch
 * - GetObject    GET  /bucket/key       body + headers (the upload's checksums too when
 *                                       x-amz-checksum-mode is ENABLED, which the SDK then
 *                                       validates); 404 NoSuchKey with S3's XML error body
 * - DeleteObject DELETE /bucket/key     204, whether or not the key existed
 * - ListObjectsV2 GET /bucket?list-type=2  prefix, start-after, max-keys, continuation-token,
 *                                       encoding-type=url; keys in UTF-8 byte order, pages of
 *                                       at most `pageSize` keys with IsTruncated and an opaque
 *                                       NextContinuationToken
 *
 * Anything else (other operations, ranges, delimiters, multipart, copy) gets 501
 * NotImplemented, so a test never passes by accident against an unimplemented feature.
 * An unknown bucket gets 404 NoSuchBucket; a request without a SigV4 Authorization header
 * gets 403 AccessDenied. Signatures themselves are not verified (any credentials work).
 */
import { createHash, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { crc32 } from 'node:zlib';
import { S3Client } from '@aws-sdk/client-s3';

export interface StoredObject {
  body: Buffer;
  contentType: string;
  /** Checksums sent with the upload (`x-amz-checksum-crc32` → value), returned on request. */
  checksums: Record<string, string>;
  etag: string;
  lastModified: Date;
}

export type S3Operation = 'PutObject' | 'GetObject' | 'DeleteObject' | 'ListObjectsV2' | 'Unsupported';

export interface RecordedRequest {
  operation: S3Operation;
  method: string;
  bucket: string;
  key: string;
  query: Record<string, string>;
  headers: IncomingMessage['headers'];
  status: number;
}

export interface S3Double {
  /** `http://127.0.0.1:<port>`: the client's endpoint, with `forcePathStyle: true`. */
  endpoint: string;
  /** The buckets that exist (the first is "the" bucket for single-bucket tests). */
  buckets: string[];
  /** Objects per bucket, keyed by object key, for inspection. */
  objects(bucket?: string): Map<string, StoredObject>;
  /** Every request answered so far, oldest first. */
  requests: RecordedRequest[];
  /** An SDK client for this double (path-style, dummy credentials). */
  client(): S3Client;
  stop(): Promise<void>;
}

export interface S3DoubleOptions {
  buckets?: string[];
  /** The most keys one ListObjectsV2 page returns (S3's own ceiling is 1000). */
  pageSize?: number;
}

const S3_NS = 'http://s3.amazonaws.com/doc/2006-03-01/';

export async function startS3Double(options: S3DoubleOptions = {}): Promise<S3Double> {
  const buckets = options.buckets ?? ['svc-artifacts'];
  const pageSize = options.pageSize ?? 1000;
  const store = new Map(buckets.map((b) => [b, new Map<string, StoredObject>()]));
  const requests: RecordedRequest[] = [];
  const clients: S3Client[] = [];

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) sendError(req, res, 500, 'InternalError', `S3 double failed: ${(error as Error).message}`);
      else res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? '/', 'http://s3.double');
    const query = Object.fromEntries(url.searchParams);
    const [, rawBucket = '', ...rawKey] = url.pathname.split('/');
    const bucket = decodeURIComponent(rawBucket);
    const key = decodeURIComponent(rawKey.join('/'));
    const record = (operation: S3Operation) => {
      const entry: RecordedRequest = { operation, method: req.method ?? '', bucket, key, query, headers: req.headers, status: 0 };
      requests.push(entry);
      res.once('finish', () => (entry.status = res.statusCode));
    };
    const operation = operationOf(req.method ?? '', key, query, req.headers);
    record(operation);

    const body = await readBody(req);
    if (!/^AWS4-HMAC-SHA256 Credential=/.test(req.headers.authorization ?? '')) {
      return sendError(req, res, 403, 'AccessDenied', 'Access Denied');
    }
    if (operation === 'Unsupported') {
      return sendError(req, res, 501, 'NotImplemented', 'The S3 double implements PutObject, GetObject, DeleteObject and ListObjectsV2 only');
    }
    const objects = store.get(bucket);
    if (!objects) {
      return sendError(req, res, 404, 'NoSuchBucket', 'The specified bucket does not exist', { BucketName: bucket });
    }

    switch (operation) {
      case 'PutObject': {
        const signedHash = String(req.headers['x-amz-content-sha256'] ?? 'UNSIGNED-PAYLOAD');
        if (!/^(UNSIGNED-PAYLOAD|STREAMING-)/.test(signedHash) && signedHash !== createHash('sha256').update(body).digest('hex')) {
          return sendError(req, res, 400, 'XAmzContentSHA256Mismatch', 'The provided \'x-amz-content-sha256\' header does not match what was computed.');
        }
        const decoded = decodeAwsChunked(req.headers, body);
        if ('error' in decoded) return sendError(req, res, 400, 'IncompleteBody', decoded.error);
        const checked = checkChecksums(req.headers, decoded.trailers, decoded.payload);
        if ('problem' in checked) return sendError(req, res, 400, 'BadDigest', checked.problem);
        const etag = `"${createHash('md5').update(decoded.payload).digest('hex')}"`;
        objects.set(key, {
          body: decoded.payload,
          contentType: req.headers['content-type'] ?? 'binary/octet-stream',
          checksums: checked.checksums,
          etag,
          lastModified: new Date(Math.floor(Date.now() / 1000) * 1000),
        });
        res.writeHead(200, { ...commonHeaders(), ...checked.checksums, ETag: etag, 'Content-Length': '0' });
        return res.end();
      }
      case 'GetObject': {
        const object = objects.get(key);
        if (!object) return sendError(req, res, 404, 'NoSuchKey', 'The specified key does not exist.', { Key: key });
        res.writeHead(200, {
          ...commonHeaders(),
          'Content-Type': object.contentType,
          'Content-Length': String(object.body.length),
          ETag: object.etag,
          'Last-Modified': object.lastModified.toUTCString(),
          'Accept-Ranges': 'bytes',
          ...(req.headers['x-amz-checksum-mode'] === 'ENABLED' && Object.keys(object.checksums).length
            ? { ...object.checksums, 'x-amz-checksum-type': 'FULL_OBJECT' }
            : {}),
        });
        return res.end(object.body);
      }
      case 'DeleteObject': {
        objects.delete(key);
        res.writeHead(204, commonHeaders());
        return res.end();
      }
      case 'ListObjectsV2':
        return listObjectsV2(req, res, bucket, objects, query);
    }
  }

  function listObjectsV2(req: IncomingMessage, res: ServerResponse, bucket: string, objects: Map<string, StoredObject>, query: Record<string, string>) {
    const prefix = query.prefix ?? '';
    const startAfter = query['start-after'];
    const token = query['continuation-token'];
    const maxKeys = query['max-keys'] === undefined ? 1000 : Number(query['max-keys']);
    if (!Number.isInteger(maxKeys) || maxKeys < 0) {
      return sendError(req, res, 400, 'InvalidArgument', 'Provided max-keys not an integer or within integer range', { ArgumentName: 'max-keys' });
    }
    if (query['encoding-type'] !== undefined && query['encoding-type'] !== 'url') {
      return sendError(req, res, 400, 'InvalidArgument', 'Invalid Encoding Method specified in Request', { ArgumentName: 'encoding-type' });
    }
    let after = startAfter;
    if (token !== undefined) {
      const decoded = decodeToken(token, bucket);
      if (decoded === undefined) {
        return sendError(req, res, 400, 'InvalidArgument', 'The continuation token provided is incorrect', { ArgumentName: 'continuation-token' });
      }
      after = decoded;
    }
    const matching = [...objects.keys()]
      .filter((k) => k.startsWith(prefix) && (after === undefined || byteCompare(k, after) > 0))
      .sort(byteCompare);
    const page = matching.slice(0, Math.min(maxKeys, pageSize));
    const truncated = matching.length > page.length;
    const encode = query['encoding-type'] === 'url' ? (s: string) => encodeURIComponent(s).replace(/%2F/g, '/') : (s: string) => s;
    const contents = page
      .map((k) => {
        const o = objects.get(k)!;
        return (
          `<Contents><Key>${xml(encode(k))}</Key><LastModified>${o.lastModified.toISOString()}</LastModified>` +
          `<ETag>${xml(o.etag)}</ETag><Size>${o.body.length}</Size><StorageClass>STANDARD</StorageClass></Contents>`
        );
      })
      .join('');
    const body =
      `<?xml version="1.0" encoding="UTF-8"?>\n<ListBucketResult xmlns="${S3_NS}">` +
      `<Name>${xml(bucket)}</Name><Prefix>${xml(encode(prefix))}</Prefix>` +
      (startAfter !== undefined ? `<StartAfter>${xml(encode(startAfter))}</StartAfter>` : '') +
      `<KeyCount>${page.length}</KeyCount><MaxKeys>${maxKeys}</MaxKeys>` +
      (query['encoding-type'] === 'url' ? '<EncodingType>url</EncodingType>' : '') +
      `<IsTruncated>${truncated}</IsTruncated>` +
      contents +
      (token !== undefined ? `<ContinuationToken>${xml(token)}</ContinuationToken>` : '') +
      (truncated ? `<NextContinuationToken>${xml(encodeToken(page.at(-1)!, bucket))}</NextContinuationToken>` : '') +
      '</ListBucketResult>';
    res.writeHead(200, { ...commonHeaders(), 'Content-Type': 'application/xml', 'Content-Length': String(Buffer.byteLength(body)) });
    res.end(body);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const endpoint = `http://127.0.0.1:${port}`;

  return {
    endpoint,
    buckets,
    requests,
    objects: (bucket = buckets[0]!) => {
      const objects = store.get(bucket);
      if (!objects) throw new Error(`no bucket ${bucket} in the S3 double`);
      return objects;
    },
    client() {
      const client = s3DoubleClient(endpoint);
      clients.push(client);
      return client;
    },
    async stop() {
      for (const client of clients.splice(0)) client.destroy();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

/** An SDK client for an S3 double (or any path-style S3 endpoint) with dummy credentials. */
export function s3DoubleClient(endpoint: string): S3Client {
  return new S3Client({
    endpoint,
    forcePathStyle: true,
    region: 'us-east-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    maxAttempts: 1,
  });
}

// ---------------------------------------------------------------------------------------

function operationOf(method: string, key: string, query: Record<string, string>, headers: IncomingMessage['headers']): S3Operation {
  // Sub-resources and features the double does not implement.
  const unsupportedQuery = ['uploads', 'uploadId', 'partNumber', 'acl', 'tagging', 'versionId', 'versioning', 'delete', 'location', 'attributes'];
  if (unsupportedQuery.some((q) => q in query)) return 'Unsupported';
  if (key === '') {
    if (method === 'GET' && query['list-type'] === '2' && query.delimiter === undefined) return 'ListObjectsV2';
    return 'Unsupported';
  }
  if (method === 'PUT' && !headers['x-amz-copy-source']) return 'PutObject';
  if (method === 'GET' && !headers.range && !headers['if-match'] && !headers['if-none-match']) return 'GetObject';
  if (method === 'DELETE') return 'DeleteObject';
  return 'Unsupported';
}

function commonHeaders(): Record<string, string> {
  return { 'x-amz-request-id': randomUUID().replace(/-/g, '').slice(0, 16).toUpperCase(), 'x-amz-id-2': randomUUID(), Server: 'AmazonS3' };
}

function sendError(req: IncomingMessage, res: ServerResponse, status: number, code: string, message: string, extra: Record<string, string> = {}) {
  const headers = commonHeaders();
  const body =
    `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${xml(message)}</Message>` +
    Object.entries(extra).map(([k, v]) => `<${k}>${xml(v)}</${k}>`).join('') +
    `<RequestId>${headers['x-amz-request-id']}</RequestId><HostId>${headers['x-amz-id-2']}</HostId></Error>`;
  res.writeHead(status, { ...headers, 'Content-Type': 'application/xml', 'Content-Length': String(Buffer.byteLength(body)) });
  res.end(req.method === 'HEAD' ? undefined : body);
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/**
 * The SDK may stream a body as `aws-chunked` (size;chunk-signature lines, then trailing
 * checksum headers). Plain bodies pass through untouched.
 */
function decodeAwsChunked(headers: IncomingMessage['headers'], raw: Buffer): { payload: Buffer; trailers: Record<string, string> } | { error: string } {
  const chunked = (headers['content-encoding'] ?? '').split(',').some((e) => e.trim() === 'aws-chunked') || /^STREAMING-/.test(String(headers['x-amz-content-sha256'] ?? ''));
  if (!chunked) return { payload: raw, trailers: {} };
  const parts: Buffer[] = [];
  const trailers: Record<string, string> = {};
  let at = 0;
  const line = () => {
    const end = raw.indexOf('\r\n', at);
    if (end < 0) return undefined;
    const text = raw.subarray(at, end).toString('latin1');
    at = end + 2;
    return text;
  };
  for (;;) {
    const header = line();
    if (header === undefined) return { error: 'aws-chunked body ended before its last chunk' };
    const size = Number.parseInt(header.split(';')[0]!, 16);
    if (!Number.isFinite(size)) return { error: 'bad aws-chunked chunk header' };
    if (size === 0) break;
    parts.push(raw.subarray(at, at + size));
    at += size;
    if (raw.subarray(at, at + 2).toString() !== '\r\n') return { error: 'bad aws-chunked chunk' };
    at += 2;
  }
  for (let trailer = line(); trailer; trailer = line()) {
    const colon = trailer.indexOf(':');
    if (colon > 0) trailers[trailer.slice(0, colon).trim().toLowerCase()] = trailer.slice(colon + 1).trim();
  }
  const payload = Buffer.concat(parts);
  const declared = headers['x-amz-decoded-content-length'];
  if (declared !== undefined && Number(declared) !== payload.length) {
    return { error: 'x-amz-decoded-content-length does not match the decoded body' };
  }
  return { payload, trailers };
}

/** Verifies every checksum the upload carries; returns those S3 would keep. */
function checkChecksums(
  headers: IncomingMessage['headers'],
  trailers: Record<string, string>,
  payload: Buffer,
): { checksums: Record<string, string> } | { problem: string } {
  const md5 = headers['content-md5'] as string | undefined;
  if (md5 !== undefined && md5 !== createHash('md5').update(payload).digest('base64')) {
    return { problem: 'The Content-MD5 you specified did not match what we received.' };
  }
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(payload));
  const computed: Record<string, string> = {
    'x-amz-checksum-crc32': crc.toString('base64'),
    'x-amz-checksum-sha1': createHash('sha1').update(payload).digest('base64'),
    'x-amz-checksum-sha256': createHash('sha256').update(payload).digest('base64'),
  };
  const checksums: Record<string, string> = {};
  for (const [name, expected] of Object.entries(computed)) {
    const value = (headers[name] as string | undefined) ?? trailers[name];
    if (value === undefined) continue;
    if (value !== expected) return { problem: `Value for ${name} header is invalid.` };
    checksums[name] = value;
  }
  return { checksums };
}

function encodeToken(lastKey: string, bucket: string): string {
  return Buffer.from(JSON.stringify({ b: bucket, k: lastKey })).toString('base64');
}

function decodeToken(token: string, bucket: string): string | undefined {
  try {
    const parsed = JSON.parse(Buffer.from(token, 'base64').toString('utf8')) as { b?: unknown; k?: unknown };
    return parsed.b === bucket && typeof parsed.k === 'string' ? parsed.k : undefined;
  } catch {
    return undefined;
  }
}

/** S3 orders keys by their UTF-8 bytes. */
function byteCompare(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

function xml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c]!);
}
