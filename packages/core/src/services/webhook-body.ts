import { validationFailed } from '../errors.ts';
import { parseJsonBody } from '../contracts/json-body.ts';

/**
 * A webhook's JSON body, parsed from the raw bytes the signature was checked over (the
 * route reads them itself): not JSON is 400 MALFORMED_JSON, nested too deep 400
 * JSON_TOO_DEEP, anything but an object 400.
 */
export function parseJsonObject(body: Uint8Array): Record<string, unknown> {
  const value = parseJsonBody(new TextDecoder().decode(body));
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw validationFailed([{ path: '', message: 'body: expected a JSON object' }]);
  return value as Record<string, unknown>;
}
