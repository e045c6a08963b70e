/**
 * A structural check of an OpenAPI 3.1 document: enough to catch the generator's own
 * mistakes (undeclared path parameters, dangling $refs, duplicate operation ids) without
 * a full validator dependency. Returns a list of problems; empty means OK.
 */
export function checkOpenApiDocument(doc: unknown): string[] {
  const problems: string[] = [];
  if (!isObject(doc)) return ['document is not an object'];
  if (doc.openapi !== '3.1.0') problems.push(`openapi is ${String(doc.openapi)}, expected 3.1.0`);
  if (!isObject(doc.info) || typeof doc.info.title !== 'string' || typeof doc.info.version !== 'string') problems.push('info.title and info.version are required');
  if (!isObject(doc.paths)) return [...problems, 'paths is missing'];

  const methods = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
  const operationIds = new Set<string>();
  const components = isObject(doc.components) ? doc.components : {};
  const schemes = isObject(components.securitySchemes) ? components.securitySchemes : {};

  for (const [path, item] of Object.entries(doc.paths)) {
    if (!path.startsWith('/')) problems.push(`path ${path} must start with /`);
    if (/:[A-Za-z_]/.test(path)) problems.push(`path ${path} uses :param syntax`);
    if (!isObject(item)) continue;
    const templated = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
    for (const [method, op] of Object.entries(item)) {
      const where = `${method.toUpperCase()} ${path}`;
      if (!methods.includes(method)) {
        problems.push(`${where}: unknown method`);
        continue;
      }
      if (!isObject(op)) continue;
      if (typeof op.operationId === 'string') {
        if (operationIds.has(op.operationId)) problems.push(`${where}: duplicate operationId ${op.operationId}`);
        operationIds.add(op.operationId);
      }
      const params = (Array.isArray(op.parameters) ? op.parameters : []).map((p) => (isObject(p) && typeof p.$ref === 'string' ? resolve(doc, p.$ref) : p));
      const declared = params.filter((p): p is Record<string, unknown> => isObject(p) && p.in === 'path').map((p) => String(p.name));
      for (const name of templated) if (!declared.includes(name)) problems.push(`${where}: path parameter {${name}} is not declared`);
      for (const name of declared) if (!templated.includes(name)) problems.push(`${where}: path parameter ${name} is not in the path`);
      for (const p of params) if (isObject(p) && p.in === 'path' && p.required !== true) problems.push(`${where}: path parameter ${String(p.name)} must be required`);
      if (!isObject(op.responses) || Object.keys(op.responses).length === 0) problems.push(`${where}: no responses`);
      for (const req of Array.isArray(op.security) ? op.security : []) {
        if (isObject(req)) for (const name of Object.keys(req)) if (!(name in schemes)) problems.push(`${where}: unknown security scheme ${name}`);
      }
    }
  }

  walk(doc, (ref, at) => {
    if (!ref.startsWith('#/')) problems.push(`${at}: external $ref ${ref}`);
    else if (resolve(doc, ref) === undefined) problems.push(`${at}: $ref ${ref} does not resolve`);
  });
  return problems;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function resolve(doc: unknown, ref: string): unknown {
  let node: unknown = doc;
  for (const raw of ref.slice(2).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (!isObject(node) && !Array.isArray(node)) return undefined;
    node = (node as Record<string, unknown>)[key];
    if (node === undefined) return undefined;
  }
  return node;
}

function walk(node: unknown, onRef: (ref: string, at: string) => void, at = '#') {
  if (Array.isArray(node)) node.forEach((v, i) => walk(v, onRef, `${at}/${i}`));
  else if (isObject(node)) {
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref' && typeof v === 'string') onRef(v, at);
      else walk(v, onRef, `${at}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`);
    }
  }
}
