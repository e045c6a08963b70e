import type { z } from 'zod';
import { validationFailed } from '../errors.ts';
import { inlineSchema } from '../openapi/build.ts';
import { fillPathParams, objectKeys, pathParamNames, type RouteSpec } from '../openapi/route.ts';

/**
 * A gateway tool's arguments are one flat object: the route's path parameters, its query
 * parameters and its JSON body's fields side by side, as an assistant expects. A body that
 * is not a plain object, or whose fields share a name with a parameter, is one argument
 * `body` instead. This module builds that object's JSON Schema from the route's own zod
 * schemas (the backend stays the one validator) and splits a call's arguments back into
 * path, query and body.
 */

type Json = Record<string, unknown>;

export interface ToolInputSchema {
  type: 'object';
  properties: Record<string, Json>;
  required?: string[];
  $defs?: Record<string, Json>;
  [key: string]: unknown;
}

export interface SplitArguments {
  /** The route path with its parameters filled in (URL-encoded). */
  path: string;
  query: Record<string, string>;
  /** The JSON body; undefined for a route without one. */
  body?: unknown;
}

const jsonSchemaOf = (schema: z.ZodType): Json => inlineSchema(schema, 'input');

/** How a route's body travels in the tool's arguments. */
function bodyLayout(route: RouteSpec): 'none' | 'flat' | 'nested' {
  if (!route.body) return 'none';
  const keys = objectKeys(route.body);
  if (!keys) return 'nested';
  const taken = new Set([...pathParamNames(route.path), ...(route.query ? objectKeys(route.query) ?? [] : [])]);
  return keys.some((k) => taken.has(k)) ? 'nested' : 'flat';
}

/**
 * An argument's schema larger than this is abbreviated: an assistant reads every tool's
 * schema on each turn, and the full test format (every step and assertion type, every
 * locator form) is ~80 KB inline. The backend still validates the full form and names the
 * field at fault, so an abbreviated schema costs at most a corrected retry.
 */
export const ARGUMENT_SCHEMA_BUDGET = 3_000;
const ABBREVIATED =
  'Abbreviated here; the server validates the full form and names any field at fault (svc test format: docs/test-format.md). ' +
  'A selector is a CSS or Playwright selector string, or one of {role, name?}, {label}, {placeholder}, {text}, {test_id}, {css}, {xpath}.';

const sizeOf = (json: unknown) => JSON.stringify(json).length;
const variantsOf = (json: Json): Json[] | undefined => {
  const list = (json.oneOf ?? json.anyOf) as Json[] | undefined;
  return list?.flatMap((v) => variantsOf(v) ?? [v]);
};
/** The discriminating `type` value of an object variant, if it has one. */
const tagOf = (variant: Json): string | undefined => {
  const t = (variant.properties as Record<string, Json> | undefined)?.type;
  if (!t) return undefined;
  if (typeof t.const === 'string') return t.const;
  const e = t.enum as unknown[] | undefined;
  return e?.length === 1 && typeof e[0] === 'string' ? e[0] : undefined;
};
/** `url, name?, timeout_ms?`: a variant's fields, optional ones marked. */
const fieldsOf = (variant: Json): string => {
  const required = new Set((variant.required ?? []) as string[]);
  return Object.keys((variant.properties ?? {}) as object).filter((k) => k !== 'type').map((k) => (required.has(k) ? k : `${k}?`)).join(', ');
};

/** A short schema saying what a large one takes: the union's kinds and their fields, or an object's fields. */
function abbreviate(json: Json, description?: string): Json {
  const own = (description ?? json.description) as string | undefined;
  const text = own ? `${own}${/[.!?]$/.test(own) ? '' : '.'} ${ABBREVIATED}` : ABBREVIATED;
  if (json.type === 'array' && json.items && typeof json.items === 'object') {
    return { type: 'array', description: text, items: abbreviate(json.items as Json, (json.items as Json).description as string | undefined) };
  }
  const variants = variantsOf(json);
  const tagged = variants?.map((v) => ({ v, tag: tagOf(v) }));
  if (tagged?.length && tagged.every((t) => t.tag)) {
    const kinds = tagged.map(({ v, tag }) => `${tag} {${fieldsOf(v)}}${v.description ? `: ${v.description}` : ''}`).join('; ');
    return { type: 'object', required: ['type'], properties: { type: { type: 'string', enum: [...new Set(tagged.map((t) => t.tag))] } }, description: `${description ?? json.description ?? ''} One of: ${kinds}.`.trim() };
  }
  if (json.type === 'object' && json.properties) return { type: 'object', description: `${text} Fields: ${fieldsOf(json)}.` };
  return { ...(json.type ? { type: json.type } : {}), description: text };
}

/**
 * Formats JSON Schema names itself: the regular expression zod adds beside them (a uuid's
 * is 166 characters, a date-time's 288) says nothing more to an assistant and, once per
 * id argument, was a tenth of the tool list. The server still validates the value.
 */
const NAMED_FORMATS = new Set(['uuid', 'date', 'date-time', 'email', 'uri', 'base64']);

function withoutFormatPatterns(json: unknown): unknown {
  if (Array.isArray(json)) return json.map(withoutFormatPatterns);
  if (!json || typeof json !== 'object') return json;
  const o = json as Json;
  const drop = typeof o.format === 'string' && NAMED_FORMATS.has(o.format) && typeof o.pattern === 'string';
  return Object.fromEntries(Object.entries(o).filter(([k]) => !(drop && k === 'pattern')).map(([k, v]) => [k, withoutFormatPatterns(v)]));
}

/** Abbreviates the properties of an object schema that exceed the budget. */
function withinBudget(props: Record<string, Json>): Record<string, Json> {
  return Object.fromEntries(Object.entries(props).map(([name, raw]) => {
    const json = withoutFormatPatterns(raw) as Json;
    return [name, sizeOf(json) > ARGUMENT_SCHEMA_BUDGET ? abbreviate(json) : json];
  }));
}

/** The JSON Schema of a tool's arguments for this route. */
export function toolInputSchema(route: RouteSpec): ToolInputSchema {
  const properties: Record<string, Json> = {};
  const required = new Set<string>();
  let defs: Record<string, Json> = {};
  const absorb = (json: Json, allRequired = false) => {
    const props = (json.properties ?? {}) as Record<string, Json>;
    Object.assign(properties, props);
    for (const name of allRequired ? Object.keys(props) : ((json.required ?? []) as string[])) required.add(name);
    defs = { ...defs, ...((json.$defs ?? {}) as Record<string, Json>) };
  };

  const pathNames = pathParamNames(route.path);
  const params = route.params ? jsonSchemaOf(route.params) : {};
  const paramProps = (params.properties ?? {}) as Record<string, Json>;
  absorb({ properties: Object.fromEntries(pathNames.map((n) => [n, paramProps[n] ?? { type: 'string' }])) }, true);
  if (route.query) absorb(jsonSchemaOf(route.query));
  const layout = bodyLayout(route);
  if (layout === 'flat') absorb(jsonSchemaOf(route.body!));
  if (layout === 'nested') {
    const { $defs, ...body } = jsonSchemaOf(route.body!);
    absorb({ properties: { body: { ...body, description: 'The request body' } }, required: ['body'], $defs });
  }
  return {
    type: 'object',
    properties: withinBudget(properties),
    ...(required.size ? { required: [...required] } : {}),
    ...(Object.keys(defs).length ? { $defs: withoutFormatPatterns(defs) as Record<string, Json> } : {}),
  };
}

/**
 * Splits a tool call's arguments into the route's path, query and body. A missing path
 * parameter fails here, naming it (the backend could only say "no route"); everything
 * else is left to the backend's validation, which names the field.
 */
export function splitToolArguments(route: RouteSpec, args: Record<string, unknown> | undefined): SplitArguments {
  const rest: Record<string, unknown> = { ...(args ?? {}) };
  const missing: string[] = [];
  const queryNames = new Set(route.query ? (objectKeys(route.query) ?? []) : []);
  const layout = bodyLayout(route);
  // A tool whose path takes `id` called with `run_id` (the name svc_report and others use): an agent copying one
  // tool's argument into another got "id: required" (found by QA). Taken as the id when it can go nowhere else.
  const aliasOf = (name: string) => {
    if (name !== 'id' || layout === 'flat') return undefined;
    const aliases = Object.keys(rest).filter((k) => k.endsWith('_id') && !queryNames.has(k));
    return aliases.length === 1 ? aliases[0] : undefined;
  };
  const path = fillPathParams(
    route.path,
    (name) => {
      const alias = rest[name] === undefined ? aliasOf(name) : undefined;
      const key = alias ?? name;
      const v = rest[key];
      delete rest[key];
      return v === undefined || v === null ? undefined : String(v);
    },
    (name) => missing.push(name),
  );
  if (missing.length) throw validationFailed(missing.map((name) => ({ path: name, message: 'required' })));

  const query: Record<string, string> = {};
  for (const name of queryNames) {
    const v = rest[name];
    delete rest[name];
    if (v !== undefined && v !== null) query[name] = typeof v === 'string' ? v : typeof v === 'object' ? JSON.stringify(v) : String(v);
  }

  if (layout === 'flat') return { path, query, body: rest };
  // Arguments that go nowhere would be lost silently: say so instead.
  const unknown = Object.keys(rest).filter((name) => !(layout === 'nested' && name === 'body'));
  if (unknown.length) throw validationFailed(unknown.map((name) => ({ path: name, message: 'unknown argument for this tool' })));
  return layout === 'nested' ? { path, query, body: rest.body } : { path, query };
}
