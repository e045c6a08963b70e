import { AppError, validationFailed } from '../errors.ts';

/**
 * A webhook's JSON body, parsed from the raw bytes the signature was checked over (the
 * route reads them itself): not JSON is 400 MALFORMED_JSON, anything but an object 400.
 */
export function parseJsonObject(body: Uint8Array): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder().decode(body));
  } catch (err) {
    throw new AppError('MALFORMED_JSON', `request body is not valid JSON: ${(err as Error).message}`);
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw validationFailed([{ path: '', message: 'body: expected a JSON object' }]);
  return value as Record<string, unknown>;
}
