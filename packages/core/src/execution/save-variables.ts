import type { z } from 'zod';
import type { SaveSpec } from '../contracts/steps.ts';
import { StepFailure, type HttpResult, type SqlResult } from './types.ts';
import { JsonPathError, resolveJsonPath } from './jsonpath.ts';
import { requireJsonBody } from './api/check-api-assertion.ts';
import { preview } from './api/json-values.ts';

type Save = z.output<typeof SaveSpec>;

/**
 * Evaluates a step's `save` spec: each variable name → the value its JSONPath selects in
 * `source` (a definite path's value; an indefinite path such as $.rows[*].id gives the
 * list). Throws StepFailure('configuration') for a malformed path and
 * StepFailure('assertion', 'save "id": $.body.id not found') when a definite path
 * selects nothing — a later step would otherwise run with a missing variable.
 */
export function saveVariables(save: Save | undefined, source: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, path] of Object.entries(save ?? {})) {
    let resolved: ReturnType<typeof resolveJsonPath>;
    try {
      resolved = resolveJsonPath(source, path);
    } catch (err) {
      if (err instanceof JsonPathError) throw new StepFailure('configuration', `save "${name}": ${err.message}`);
      throw err;
    }
    if (!resolved.found) throw new StepFailure('assertion', `save "${name}": ${path} not found`, { variable: name, path });
    out[name] = resolved.value;
  }
  return out;
}

/**
 * An API step's saves from its response. A path into `$.body` that finds nothing fails
 * saying what came back — what the body is when it is not JSON (an HTML error page, an
 * empty answer), as a json assertion does, else the status and the body — rather than
 * only "not found".
 */
export function saveFromResponse(save: Save, response: HttpResult): Record<string, unknown> {
  try {
    return saveVariables(save, apiSaveSource(response));
  } catch (err) {
    const path = err instanceof StepFailure ? err.details?.path : undefined;
    // Header names arrive in lower case (HTTP's are case-insensitive): say the spelling that finds it.
    const header = typeof path === 'string' ? /^\$(?:\.headers\b|\[['"]headers['"]\])(?:\.([\w-]+)|\[['"]([^'"]+)['"]\])/.exec(path) : null;
    const name = header?.[1] ?? header?.[2];
    if (name && name !== name.toLowerCase() && name.toLowerCase() in response.headers) {
      throw new StepFailure('configuration', `${(err as StepFailure).message}: header names are lower case, write $.headers['${name.toLowerCase()}']`, { ...(err as StepFailure).details });
    }
    if (typeof path !== 'string' || !/^\$(\.body\b|\[['"]body['"]\])/.test(path)) throw err;
    try {
      requireJsonBody(response);
    } catch (notJson) {
      if (notJson instanceof StepFailure) throw new StepFailure(notJson.kind, `save "${String((err as StepFailure).details?.variable)}": ${notJson.message}`, { ...(err as StepFailure).details });
    }
    // The body is JSON but holds no such value (an error answer, another shape): show what came back.
    const failed = err as StepFailure;
    throw new StepFailure(failed.kind, `${failed.message} (the response: ${response.status}, body ${preview(response.body)})`, { ...failed.details, status: response.status });
  }
}

/** What an API step's save paths see: $.status, $.headers['content-type'], $.body.id. */
export function apiSaveSource(response: HttpResult): { status: number; headers: Record<string, string>; body: unknown } {
  return { status: response.status, headers: response.headers, body: response.body };
}

/** What a DB step's save paths see: $.rows[0].id, $.row_count. */
export function dbSaveSource(result: SqlResult): { rows: SqlResult['rows']; row_count: number } {
  return { rows: result.rows, row_count: result.row_count };
}
