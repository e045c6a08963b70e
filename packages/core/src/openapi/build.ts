import { z } from 'zod';
import * as contracts from '../contracts/index.ts';
import { aliasesOf, listItemOf } from '../contracts/common.ts';
import { ErrorBodySchema } from '../contracts/error-body.ts';
import { objectKeys, pathParamNames, toOpenApiPath, type RouteSpec } from './route.ts';

/**
 * OpenAPI 3.1 from route data. Every JSON Schema comes from the zod contracts through
 * `z.toJSONSchema` (draft 2020-12, which OpenAPI 3.1 uses natively): request bodies
 * and parameters in `io: 'input'` form (defaults make fields optional), responses in
 * `io: 'output'` form. Exported contract schemas become named components; the rest are
 * named after their operation. The document is plain data and deterministic for a
 * given route list.
 */

type Json = Record<string, unknown>;

export interface OpenApiOptions {
  title: string;
  version: string;
  description?: string;
  serverUrl?: string;
  /** Extra named schemas (component name → schema) beyond the contracts' exports. */
  schemas?: Record<string, z.ZodType>;
}

export interface OpenApiDocument {
  openapi: '3.1.0';
  info: { title: string; version: string; description?: string };
  jsonSchemaDialect: string;
  servers?: { url: string }[];
  tags: { name: string }[];
  paths: Record<string, Record<string, Json>>;
  components: {
    schemas: Record<string, Json>;
    responses: Record<string, Json>;
    parameters: Record<string, Json>;
    securitySchemes: Record<string, Json>;
  };
}

const REF = '#/components/schemas/';
// Placeholder prefixes while input and output forms are converted separately.
const IN = '#/components/in/';
const OUT = '#/components/out/';
const DIALECT = 'https://json-schema.org/draft/2020-12/schema';

export const securitySchemes = {
  bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'Access token from /api/auth/login (or an identity provider)' },
  cookieAuth: { type: 'apiKey', in: 'cookie', name: 'svc_session', description: 'Browser session cookie set by /api/auth/login' },
  apiKeyAuth: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'Organization API key (svc_sk_...)' },
} as const;

const standardResponses: Record<string, Json> = {
  ValidationFailed: { description: 'VALIDATION_FAILED: the request does not match the schema; details.issues lists { path, message }' },
  Unauthenticated: { description: 'UNAUTHENTICATED / INVALID_TOKEN: no valid credential' },
  Forbidden: { description: 'FORBIDDEN / INSUFFICIENT_ROLE / INSUFFICIENT_SCOPE: not allowed' },
  Error: { description: 'Any other error, in the standard error body' },
};
for (const r of Object.values(standardResponses)) r.content = { 'application/json': { schema: { $ref: `${OUT}ErrorBody` } } };

const organizationHeader: Json = {
  name: 'X-Organization-ID',
  in: 'header',
  required: false,
  description: "Organization to act in. Defaults to the caller's default organization (an API key always acts in its own).",
  schema: { type: 'string', format: 'uuid' },
};

// ---- naming ---------------------------------------------------------------

let contractNames: Map<z.ZodType, string> | undefined;

/** Component names of the exported contract schemas: export name minus a trailing "Schema". */
function namesFromContracts(): Map<z.ZodType, string> {
  if (contractNames) return contractNames;
  contractNames = new Map();
  const used = new Set<string>();
  for (const [exportName, value] of Object.entries(contracts)) {
    if (!isZod(value) || !isComponentWorthy(value) || contractNames.has(value)) continue;
    const short = exportName.replace(/Schema$/, '');
    const name = used.has(short) ? exportName : short;
    used.add(name);
    contractNames.set(value, name);
  }
  return contractNames;
}

function isZod(value: unknown): value is z.ZodType {
  return typeof value === 'object' && value !== null && '_zod' in value;
}

function defOf(schema: z.ZodType): Json {
  return (schema as unknown as { _zod: { def: Json } })._zod.def;
}

/** Objects, enums and alias-wrapped objects get components; scalars stay inline. */
function isComponentWorthy(schema: z.ZodType): boolean {
  const def = defOf(schema);
  if (def.type === 'object' || def.type === 'enum') return true;
  if (def.type === 'pipe') return objectKeys(schema) !== undefined;
  return false;
}

function operationIdFor(route: RouteSpec): string {
  if (route.operationId) return route.operationId;
  const words = toOpenApiPath(route.path)
    .split('/')
    .filter(Boolean)
    .map((seg) => (seg.startsWith('{') ? `By ${seg.slice(1, -1)}` : seg))
    .join(' ');
  return camel(`${route.method.toLowerCase()} ${words}`);
}

function camel(text: string): string {
  const parts = text.split(/[^A-Za-z0-9]+/).filter(Boolean);
  return parts.map((p, i) => (i === 0 ? p[0]!.toLowerCase() + p.slice(1) : p[0]!.toUpperCase() + p.slice(1))).join('');
}

const pascal = (text: string) => {
  const c = camel(text);
  return c[0]!.toUpperCase() + c.slice(1);
};

/** Assigns each schema one component name per io, reusing contract names. */
class Namer {
  readonly bySchema = new Map<z.ZodType, string>();
  readonly byName = new Map<string, z.ZodType>();
  constructor(private readonly known: Map<z.ZodType, string>) {}

  name(schema: z.ZodType, fallback: string): string {
    const existing = this.bySchema.get(schema);
    if (existing) return existing;
    let name = this.known.get(schema);
    if (!name) {
      const item = listItemOf(schema);
      const itemName = item ? this.known.get(item) ?? this.bySchema.get(item) : undefined;
      if (item && itemName) {
        const listName = `${itemName}List`;
        const prior = this.byName.get(listName);
        // Every listResponse(X) is structurally the same: share one component.
        if (prior && listItemOf(prior) === item) {
          this.bySchema.set(schema, listName);
          return listName;
        }
        name = listName;
      } else name = fallback;
    }
    let unique = name;
    for (let n = 2; this.byName.has(unique) && this.byName.get(unique) !== schema; n++) unique = `${name}${n}`;
    this.bySchema.set(schema, unique);
    this.byName.set(unique, schema);
    return unique;
  }
}

// ---- conversion -------------------------------------------------------------

type Io = 'input' | 'output';

/** Converts the given named schemas (plus every contract schema, for $refs) into components. */
function convert(named: Map<string, z.ZodType>, io: Io, uriPrefix: string): Record<string, Json> {
  const registry = z.registry<{ id: string }>();
  for (const [name, schema] of named) registry.add(schema, { id: name });
  const result = z.toJSONSchema(registry, {
    target: 'draft-2020-12',
    io,
    unrepresentable: 'any',
    uri: (id) => `${uriPrefix}${id}`,
    override: (ctx) => addAliasProperties(ctx.zodSchema as unknown as z.ZodType, ctx.jsonSchema as Json, io),
  }) as { schemas: Record<string, Json> };
  const out: Record<string, Json> = {};
  for (const [name, schema] of Object.entries(result.schemas)) {
    if (name === '__shared') continue;
    const { $schema: _s, $id: _i, ...rest } = schema;
    out[name] = rest;
  }
  const shared = (result.schemas.__shared?.$defs ?? {}) as Record<string, Json>;
  for (const [name, schema] of Object.entries(shared)) out[`__shared_${name}`] = schema;
  return rewriteRefs(out, (ref) => ref.replace(/^__shared#\/\$defs\//, `${uriPrefix}__shared_`)) as Record<string, Json>;
}

/** Documents alias keys accepted by `acceptAliases` schemas as deprecated properties. */
function addAliasProperties(schema: z.ZodType, json: Json, io: Io) {
  if (io !== 'input') return;
  const aliases = aliasesOf(schema);
  const props = json.properties as Record<string, Json> | undefined;
  if (!aliases || !props) return;
  for (const [alias, canonical] of Object.entries(aliases)) {
    if (props[alias]) continue;
    props[alias] = { deprecated: true, description: `Alias of ${canonical}; send one or the other` };
  }
}

function rewriteRefs(value: unknown, fn: (ref: string) => string): unknown {
  if (Array.isArray(value)) return value.map((v) => rewriteRefs(v, fn));
  if (value && typeof value === 'object') {
    const out: Json = {};
    for (const [k, v] of Object.entries(value)) out[k] = k === '$ref' && typeof v === 'string' ? fn(v) : rewriteRefs(v, fn);
    return out;
  }
  return value;
}

function collectRefs(value: unknown, into: Set<string>) {
  if (Array.isArray(value)) value.forEach((v) => collectRefs(v, into));
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (k === '$ref' && typeof v === 'string') into.add(v);
      else collectRefs(v, into);
    }
  }
}

/** Inline JSON Schema (no components) for parameters and tool arguments. */
export function inlineSchema(schema: z.ZodType, io: Io): Json {
  const { $schema: _s, ...rest } = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as Json;
  return rest;
}

function parametersFrom(schema: z.ZodType | undefined, location: 'query' | 'path', pathNames: string[]): Json[] {
  const params: Json[] = [];
  const json = schema ? inlineSchema(schema, 'input') : {};
  const props = (json.properties ?? {}) as Record<string, Json>;
  const required = new Set((json.required ?? []) as string[]);
  const names = location === 'path' ? pathNames : Object.keys(props);
  for (const name of names) {
    const { description, ...propSchema } = props[name] ?? { type: 'string' };
    params.push({
      name,
      in: location,
      required: location === 'path' ? true : required.has(name),
      ...(typeof description === 'string' ? { description } : {}),
      schema: propSchema,
    });
  }
  return params;
}

// ---- document ---------------------------------------------------------------

/** Build the OpenAPI 3.1.0 document for a list of routes. */
export function buildOpenApiDocument(routes: readonly RouteSpec[], options: OpenApiOptions): OpenApiDocument {
  const known = new Map(namesFromContracts());
  for (const [name, schema] of Object.entries(options.schemas ?? {})) known.set(schema, name);
  const inputs = new Namer(known);
  const outputs = new Namer(known);
  outputs.name(ErrorBodySchema, 'ErrorBody');

  const paths: OpenApiDocument['paths'] = {};
  const tags = new Set<string>();
  const usedIds = new Set<string>();

  for (const route of routes) {
    const path = toOpenApiPath(route.path);
    const method = route.method.toLowerCase();
    let operationId = operationIdFor(route);
    for (let n = 2; usedIds.has(operationId); n++) operationId = `${operationIdFor(route)}${n}`;
    usedIds.add(operationId);
    route.tags.forEach((t) => tags.add(t));

    const parameters = [
      ...parametersFrom(route.params, 'path', pathParamNames(route.path)),
      ...parametersFrom(route.query, 'query', []),
      ...(route.headers ?? []).map((h) => ({ name: h.name, in: 'header', required: h.required ?? false, description: h.description, schema: { type: 'string' } })),
      ...(route.auth === 'public' || route.auth === 'user' ? [] : [{ $ref: '#/components/parameters/OrganizationId' }]),
    ];

    const op: Json = {
      operationId,
      summary: route.summary,
      ...(route.description ? { description: route.description } : {}),
      tags: route.tags,
      ...(route.deprecated ? { deprecated: true } : {}),
      'x-svc-auth': route.auth,
      security: securityFor(route),
    };
    if (parameters.length) op.parameters = parameters;
    if (route.body) {
      const name = inputs.name(route.body, pascal(`${operationId} body`));
      const bodyJson = inlineSchema(route.body, 'input');
      op.requestBody = {
        required: Array.isArray(bodyJson.required) && bodyJson.required.length > 0,
        content: { [route.bodyMediaType ?? 'application/json']: { schema: { $ref: `${IN}${name}` } } },
      };
    }

    const responses: Json = {};
    for (const [status, res] of Object.entries(route.responses)) {
      const code = Number(status);
      if (res.schema) {
        const name = outputs.name(res.schema, pascal(`${operationId} ${status} response`));
        responses[status] = { description: res.description, content: { 'application/json': { schema: { $ref: `${OUT}${name}` } } } };
      } else if (code >= 400) {
        responses[status] = { description: res.description, content: { 'application/json': { schema: { $ref: `${OUT}ErrorBody` } } } };
      } else {
        responses[status] = { description: res.description };
      }
      if (res.headers) (responses[status] as Json).headers = Object.fromEntries(Object.entries(res.headers).map(([name, description]) => [name, { description, schema: { type: 'string' } }]));
    }
    const hasInput = Boolean(route.body || route.query || route.params);
    if (hasInput && !responses['400']) responses['400'] = { $ref: '#/components/responses/ValidationFailed' };
    if (route.auth !== 'public') {
      if (!responses['401']) responses['401'] = { $ref: '#/components/responses/Unauthenticated' };
      if (!responses['403']) responses['403'] = { $ref: '#/components/responses/Forbidden' };
    }
    responses.default = { $ref: '#/components/responses/Error' };
    op.responses = responses;

    (paths[path] ??= {})[method] = op;
  }

  const { schemas, fix } = mergeComponents(inputs, outputs, known, paths);
  const doc: OpenApiDocument = {
    openapi: '3.1.0',
    info: { title: options.title, version: options.version, ...(options.description ? { description: options.description } : {}) },
    jsonSchemaDialect: DIALECT,
    ...(options.serverUrl ? { servers: [{ url: options.serverUrl }] } : {}),
    tags: [...tags].sort().map((name) => ({ name })),
    paths: fix(paths) as OpenApiDocument['paths'],
    components: {
      schemas,
      responses: fix(standardResponses) as Record<string, Json>,
      parameters: { OrganizationId: structuredClone(organizationHeader) },
      securitySchemes: structuredClone(securitySchemes) as unknown as Record<string, Json>,
    },
  };
  return doc;
}

function securityFor(route: RouteSpec): Json[] {
  if (route.auth === 'public') return [];
  const schemes: Json[] = [{ bearerAuth: [] }, { cookieAuth: [] }];
  if (route.apiKeys !== false) schemes.push({ apiKeyAuth: [] });
  return schemes;
}

/**
 * Convert input and output schemas and give each reachable component one name. A schema
 * used on both sides whose input and output forms are identical is one component;
 * otherwise its input form is named `<Name>Input` (`<Name>In` when the name already ends
 * in Input). Components no operation reaches are dropped.
 */
function mergeComponents(inputs: Namer, outputs: Namer, known: Map<z.ZodType, string>, paths: unknown) {
  const inNamed = new Map(inputs.byName);
  const outNamed = new Map(outputs.byName);
  for (const [schema, name] of known) {
    if (!inNamed.has(name)) inNamed.set(name, schema);
    if (!outNamed.has(name)) outNamed.set(name, schema);
  }
  const inJson = convert(inNamed, 'input', IN);
  const outJson = convert(outNamed, 'output', OUT);

  // Reachability from the operations (plus the standard error body).
  const roots = new Set<string>([`${OUT}ErrorBody`]);
  collectRefs(paths, roots);
  const reach = { in: new Set<string>(), out: new Set<string>() };
  const queue = [...roots];
  while (queue.length) {
    const ref = queue.pop()!;
    const side = ref.startsWith(IN) ? 'in' : ref.startsWith(OUT) ? 'out' : undefined;
    if (!side) continue;
    const name = ref.slice((side === 'in' ? IN : OUT).length);
    if (reach[side].has(name)) continue;
    reach[side].add(name);
    const refs = new Set<string>();
    collectRefs((side === 'in' ? inJson : outJson)[name], refs);
    queue.push(...refs);
  }

  // Names used on both sides whose forms differ (or that reference such a name).
  const plain = (v: unknown) => JSON.stringify(rewriteRefs(v, (r) => r.replace(IN, '').replace(OUT, '')));
  const both = [...reach.in].filter((n) => reach.out.has(n));
  const differs = new Set(both.filter((n) => plain(inJson[n]) !== plain(outJson[n])));
  for (let changed = true; changed; ) {
    changed = false;
    for (const name of both) {
      if (differs.has(name)) continue;
      const refs = new Set<string>();
      collectRefs(inJson[name], refs);
      if ([...refs].some((r) => differs.has(r.replace(IN, '')))) {
        differs.add(name);
        changed = true;
      }
    }
  }
  const taken = new Set([...reach.out, ...[...reach.in].filter((n) => !differs.has(n))]);
  const inputNames = new Map<string, string>();
  for (const name of reach.in) {
    if (!differs.has(name)) {
      inputNames.set(name, name);
      continue;
    }
    const base = /Input$/.test(name) ? `${name}In` : `${name}Input`;
    let unique = base;
    for (let n = 2; taken.has(unique); n++) unique = `${base}${n}`;
    taken.add(unique);
    inputNames.set(name, unique);
  }

  const fix = (v: unknown) =>
    rewriteRefs(v, (r) =>
      r.startsWith(IN) ? REF + (inputNames.get(r.slice(IN.length)) ?? r.slice(IN.length)) : r.startsWith(OUT) ? REF + r.slice(OUT.length) : r,
    );
  const schemas: Record<string, Json> = {};
  for (const name of [...reach.out].sort()) schemas[name] = fix(outJson[name]) as Json;
  for (const name of [...reach.in].sort()) {
    const final = inputNames.get(name)!;
    if (!(final in schemas)) schemas[final] = fix(inJson[name]) as Json;
  }
  const sorted: Record<string, Json> = {};
  for (const name of Object.keys(schemas).sort()) sorted[name] = schemas[name]!;
  return { schemas: sorted, fix };
}
