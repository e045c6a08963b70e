import type { Context } from 'hono';
import { validationFailed } from '@svc/core/errors';
import type { RouteHeader } from '@svc/core/openapi/route';

/** If-Match as the OpenAPI document shows it on the routes that change a test. */
export const IF_MATCH_HEADER: RouteHeader = { name: 'If-Match', description: 'the ETag of the test as you read it ("3"), or *: a test changed since answers 412 PRECONDITION_FAILED' };
/** The ETag response header as the OpenAPI document shows it. */
export const ETAG_HEADER = { ETag: 'the test\'s revision, quoted ("3"): send it back in If-Match' };

/** The ETag of a test: its revision, quoted (a strong validator). */
export const revisionEtag = (revision: number) => `"${revision}"`;

/**
 * The revision a change must find, from If-Match (an ETag from GET; `*` = any) or from
 * the body's expected_revision for clients that cannot set headers; undefined: any
 * revision (last write wins). A weak `W/"n"` is taken as `"n"`: proxies that compress
 * responses weaken ETags, and ours are only ever revision numbers.
 */
export function expectedRevision(c: Context, fromBody: number | undefined): number | undefined {
  const header = c.req.header('if-match')?.trim();
  let fromHeader: number | undefined;
  if (header !== undefined && header !== '*') {
    const m = /^(?:W\/)?"([1-9]\d{0,15})"$/.exec(header);
    if (!m) throw validationFailed([{ path: 'If-Match', message: 'expected one ETag from GET /api/tests/{id}, e.g. "3", or *' }]);
    fromHeader = Number(m[1]);
  }
  if (fromHeader !== undefined && fromBody !== undefined && fromHeader !== fromBody) {
    throw validationFailed([{ path: 'expected_revision', message: `is ${fromBody} but If-Match says ${fromHeader}: send one of them` }]);
  }
  return fromHeader ?? fromBody;
}
