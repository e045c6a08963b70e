import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import type { ApiAssertion } from '../../contracts/steps.ts';
import { StepFailure, type HttpResult } from '../types.ts';
import { JsonPathError, evaluateJsonPath, parseJsonPath, resolveJsonPath } from '../jsonpath.ts';
import { isExactIntegerText } from './exact-json.ts';
import { isJsonContentType } from './http-exchange.ts';
import { deepEqual, jsonType, preview, textPreview } from './json-values.ts';

/**
 * Checks one API assertion against the latest response. Throws StepFailure:
 * 'assertion' (the app answered, but not as asserted — the message says expected vs
 * actual), 'http' (a JSON assertion on a body that is not JSON), 'configuration' (no
 * request yet, malformed JSONPath or JSON Schema).
 */
export function checkApiAssertion(assertion: ApiAssertion, response: HttpResult | undefined): void {
  if (!response) throw new StepFailure('configuration', `no request step before this assertion: ${assertion.type} checks the response of a request step (a page opened by goto is checked with url, title, text and the other UI assertions)`);
  switch (assertion.type) {
    case 'status':
      return checkStatus(assertion, response);
    case 'header':
      return checkHeader(assertion, response);
    case 'json':
      return checkJson(assertion, response);
    case 'json_schema':
      return checkJsonSchema(assertion, response);
    case 'response_time':
      if (response.duration_ms > assertion.max_ms) {
        throw new StepFailure('assertion', `expected a response within ${assertion.max_ms} ms, it took ${response.duration_ms} ms`, { expected: assertion.max_ms, actual: response.duration_ms });
      }
      return;
    default: {
      const never: never = assertion;
      throw new StepFailure('unsupported', `unknown API assertion ${JSON.stringify((never as { type: string }).type)}`);
    }
  }
}

type Of<T extends ApiAssertion['type']> = Extract<ApiAssertion, { type: T }>;

/** The start of a response's body, for a failure message (empty for an empty body). */
export function bodyHint(response: HttpResult): string {
  return response.text ? ` (body: ${textPreview(response.text, 200)})` : '';
}

function checkStatus(a: Of<'status'>, response: HttpResult): void {
  if (a.equals !== undefined && response.status !== a.equals) {
    throw new StepFailure('assertion', `expected status ${a.equals}, got ${response.status}${bodyHint(response)}`, { expected: a.equals, actual: response.status });
  }
  if (a.in !== undefined && !a.in.includes(response.status)) {
    throw new StepFailure('assertion', `expected status in [${a.in.join(', ')}], got ${response.status}${bodyHint(response)}`, { expected: a.in, actual: response.status });
  }
}

function compileRegex(pattern: string): RegExp {
  try {
    return new RegExp(pattern);
  } catch (err) {
    throw new StepFailure('configuration', `invalid regular expression /${pattern}/: ${(err as Error).message}`);
  }
}

function checkHeader(a: Of<'header'>, response: HttpResult): void {
  const name = a.header.toLowerCase();
  const value = Object.entries(response.headers).find(([k]) => k.toLowerCase() === name)?.[1];
  const present = () => Object.keys(response.headers).sort().join(', ') || 'none';
  if (a.exists !== undefined) {
    if (a.exists && value === undefined) throw new StepFailure('assertion', `expected header "${a.header}" to be present; response headers: ${present()}`);
    if (!a.exists && value !== undefined) throw new StepFailure('assertion', `expected no header "${a.header}", got ${JSON.stringify(value)}`);
    return;
  }
  if (value === undefined) throw new StepFailure('assertion', `header "${a.header}" is missing; response headers: ${present()}`);
  if (a.equals !== undefined && value !== a.equals) {
    throw new StepFailure('assertion', `expected header "${a.header}" to equal ${JSON.stringify(a.equals)}, got ${JSON.stringify(value)}`, { expected: a.equals, actual: value });
  }
  if (a.contains !== undefined && !value.includes(a.contains)) {
    throw new StepFailure('assertion', `expected header "${a.header}" to contain ${JSON.stringify(a.contains)}, got ${JSON.stringify(value)}`, { expected: a.contains, actual: value });
  }
  if (a.matches !== undefined && !compileRegex(a.matches).test(value)) {
    throw new StepFailure('assertion', `expected header "${a.header}" to match /${a.matches}/, got ${JSON.stringify(value)}`, { expected: a.matches, actual: value });
  }
}

/** The parsed JSON body, or StepFailure('http') saying what the body is instead. */
export function requireJsonBody(response: HttpResult): unknown {
  const contentType = Object.entries(response.headers).find(([k]) => k.toLowerCase() === 'content-type')?.[1];
  if (isJsonContentType(contentType)) {
    if (response.body !== undefined) return response.body;
    if (response.text.trim() === '') throw new StepFailure('http', `expected a JSON body but the ${contentType} response is empty (status ${response.status})`);
    throw new StepFailure('http', `expected a JSON body but the ${contentType} response is not valid JSON: ${textPreview(response.text)}`);
  }
  // An unlabelled body that parsed as JSON (see http-exchange) is accepted.
  if (contentType === undefined && response.body !== undefined && typeof response.body !== 'string') return response.body;
  if (response.text.trim() === '') throw new StepFailure('http', `expected a JSON body but the response is empty (status ${response.status}${contentType ? `, ${contentType}` : ''})`);
  const kind = contentType ? contentType.split(';')[0].trim() : 'without a content type';
  throw new StepFailure('http', `expected a JSON body but the response is ${kind}: ${textPreview(response.text)}`);
}

/**
 * An integer beyond 2^53 is read from a response as its exact digits, as text
 * (exact-json.ts), and a test file's own such number is already rounded by JSON: a failure
 * involving one says how to write it.
 */
function inexactHint(value: unknown, expected: unknown): string {
  if (isExactIntegerText(value) && typeof expected !== 'string') return ` (an integer beyond 2^53 is read exactly, as text: write equals "${value}")`;
  if (typeof expected === 'number' && Number.isInteger(expected) && !Number.isSafeInteger(expected)) return ' (a JSON number beyond 2^53 is not exact in the test file: write it as a string, "9007199254740993")';
  return '';
}

function checkJson(a: Of<'json'>, response: HttpResult): void {
  try {
    parseJsonPath(a.path);
  } catch (err) {
    if (err instanceof JsonPathError) throw new StepFailure('configuration', err.message);
    throw err;
  }
  const body = requireJsonBody(response);
  const where = a.path;

  if (a.exists !== undefined) {
    const r = evaluateJsonPath(body, a.path);
    if (a.exists && !r.found) throw new StepFailure('assertion', `expected ${where} to exist, it does not (body: ${preview(body, 200)})`);
    if (!a.exists && r.found) throw new StepFailure('assertion', `expected ${where} not to exist, got ${preview(r.definite ? r.values[0] : r.values)}`);
    return;
  }

  const { found, value } = resolveJsonPath(body, a.path);
  if (!found) throw new StepFailure('assertion', `${where} not found in the response body (body: ${preview(body, 200)})`);

  if ('equals' in a && a.contains === undefined && a.matches === undefined) {
    if (!deepEqual(value, a.equals)) {
      throw new StepFailure('assertion', `${where}: expected ${preview(a.equals)}, got ${preview(value)}${inexactHint(value, a.equals)}`, { expected: a.equals, actual: value });
    }
    return;
  }
  if (a.contains !== undefined) {
    if (typeof value !== 'string') throw new StepFailure('assertion', `${where}: expected a string containing ${JSON.stringify(a.contains)}, got ${jsonType(value)} ${preview(value)}`);
    if (!value.includes(a.contains)) throw new StepFailure('assertion', `${where}: expected ${preview(value)} to contain ${JSON.stringify(a.contains)}`, { expected: a.contains, actual: value });
    return;
  }
  if (a.matches !== undefined) {
    // Numbers and booleans are matched as their JSON text; objects and null are not strings.
    const text = typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'boolean' ? String(value) : undefined;
    if (text === undefined) throw new StepFailure('assertion', `${where}: expected a string matching /${a.matches}/, got ${jsonType(value)} ${preview(value)}`);
    if (!compileRegex(a.matches).test(text)) throw new StepFailure('assertion', `${where}: expected ${preview(value)} to match /${a.matches}/`, { expected: a.matches, actual: value });
  }
}

// ---------------------------------------------------------------- JSON Schema

const DRAFT_2020 = /^https?:\/\/json-schema\.org\/draft\/2020-12\/schema#?$/;

// Ajv and its formats take ~150 ms of CPU to load, which a run without JSON Schema
// assertions (every UI-only run) should not pay at start-up: they load on first use.
let ajvModules: { Ajv2020: typeof import('ajv/dist/2020.js').Ajv2020; fullFormats: unknown } | undefined;
let loading: Promise<void> | undefined;

/** Loads the JSON Schema validator; checkApiAssertion needs it for `json_schema` assertions. */
export function loadJsonSchemaSupport(): Promise<void> {
  loading ??= Promise.all([import('ajv/dist/2020.js'), import('ajv-formats/dist/formats.js')]).then(([ajv, formats]) => {
    ajvModules = { Ajv2020: ajv.Ajv2020, fullFormats: formats.fullFormats };
  });
  return loading;
}
const validators = new Map<string, ValidateFunction>();
const MAX_CACHED = 100;

/**
 * A validator per distinct schema, each in its own Ajv instance so that two tests'
 * schemas with the same $id never clash. Schemas declaring another draft are validated
 * as 2020-12 (most draft-07 schemas mean the same thing there).
 */
function validatorFor(schema: Record<string, unknown>): ValidateFunction {
  const key = JSON.stringify(schema);
  const cached = validators.get(key);
  if (cached) return cached;
  const effective = typeof schema.$schema === 'string' && !DRAFT_2020.test(schema.$schema) ? { ...schema, $schema: undefined } : schema;
  if (!ajvModules) throw new StepFailure('internal', 'JSON Schema support is not loaded (await loadJsonSchemaSupport() first)');
  const ajv = new ajvModules.Ajv2020({ allErrors: true, strict: false, logger: false, formats: ajvModules.fullFormats as never });
  let validate: ValidateFunction;
  try {
    validate = ajv.compile(JSON.parse(JSON.stringify(effective)));
  } catch (err) {
    throw new StepFailure('configuration', `invalid JSON Schema: ${(err as Error).message}`);
  }
  if (validators.size >= MAX_CACHED) validators.delete(validators.keys().next().value as string);
  validators.set(key, validate);
  return validate;
}

function describeError(e: ErrorObject): string {
  const at = e.instancePath || '(root)';
  const p = e.params as Record<string, unknown>;
  let detail = e.message ?? 'is invalid';
  if (e.keyword === 'additionalProperties' && typeof p.additionalProperty === 'string') detail += ` (${JSON.stringify(p.additionalProperty)})`;
  else if (e.keyword === 'enum' && Array.isArray(p.allowedValues)) detail += ` ${preview(p.allowedValues, 80)}`;
  else if (e.keyword === 'const') detail += ` ${preview(p.allowedValue, 80)}`;
  return `${at} ${detail}`;
}

function checkJsonSchema(a: Of<'json_schema'>, response: HttpResult): void {
  const body = requireJsonBody(response);
  const problems = schemaViolations(a.schema, withNumbers(body, response.text));
  if (!problems) return;
  throw new StepFailure('assertion', `response body does not match the JSON Schema: ${problems.summary}`, { errors: problems.errors });
}

/**
 * A schema checks types: an integer kept as its exact digits (exact-json.ts) is a number
 * to it (`"type": "integer"`), so the schema reads the body as plain JSON.
 */
function withNumbers(body: unknown, text: string): unknown {
  if (!/\d{16}/.test(text)) return body;
  try {
    return JSON.parse(text);
  } catch {
    return body;
  }
}

/**
 * Why a value does not satisfy a JSON Schema (undefined when it does): the first few
 * errors in words, and up to 20 as data. Needs loadJsonSchemaSupport() first; an invalid
 * schema is StepFailure('configuration'). Also used for a model's extraction answer.
 */
export function schemaViolations(schema: Record<string, unknown>, value: unknown): { summary: string; errors: Array<{ path: string; keyword: string; message?: string }> } | undefined {
  const validate = validatorFor(schema);
  if (validate(value)) return undefined;
  const errors = validate.errors ?? [];
  const shown = errors.slice(0, 3).map(describeError);
  const more = errors.length > shown.length ? ` (and ${errors.length - shown.length} more)` : '';
  return { summary: `${shown.join('; ')}${more}`, errors: errors.slice(0, 20).map((e) => ({ path: e.instancePath, keyword: e.keyword, message: e.message })) };
}
