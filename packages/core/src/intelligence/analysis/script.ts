import type * as TS from 'typescript';
import { emptyExtracted, type Extracted, type UiForm } from './types.ts';
import { httpMethods, isRoutePath, joinPaths, normaliseMethod } from './route-paths.ts';
import { elementFrom, fieldFrom, isFieldTag } from './selectors.ts';

/**
 * JS/TS/JSX/TSX extraction with the TypeScript compiler's parser (syntax only, no type
 * checking): server routes (`app.get('/x', h)`, `router.route('/x').post(h)`,
 * `app.on('GET', '/x', h)`, object-style `{ method, url|path }` as in `fastify.route` or
 * `mountRoute`), React Router routes (`<Route path>` and route-object arrays) and JSX
 * elements and forms.
 */

/** Receivers whose `.get('/x')` is an HTTP client call or a map lookup, not a route. */
const clientReceivers = /^(axios|http|https|fetch|client|request|superagent|ky|got|\$http|cy|page|supertest|agent|req|res|map|cache|params|searchParams|headers|url|store|localStorage|sessionStorage|redis|db|knex|prisma|this)$/i;
/** Receivers that are servers or routers whatever the file imports. */
const serverReceivers = /^(app|router|server|fastify|api|routes?|r|hono|instance|svc|v\d+)$/i;

const frameworkImports: Array<[RegExp, string]> = [
  [/^express$/, 'express'],
  [/^fastify$/, 'fastify'],
  [/^hono(\/|$)/, 'hono'],
  [/^(@koa\/router|koa-router|koa)$/, 'koa'],
  [/^next(\/|$)/, 'nextjs'],
  [/^react-router(-dom)?$/, 'react-router'],
  [/^@remix-run\//, 'remix'],
  [/^react$/, 'react'],
  [/^vue$/, 'vue'],
  [/^@angular\/core$/, 'angular'],
  [/^@nestjs\//, 'nestjs'],
  [/^svelte/, 'svelte'],
];

const routerFactories = new Set(['createBrowserRouter', 'createHashRouter', 'createMemoryRouter', 'createStaticRouter', 'useRoutes', 'createRoutesFromElements']);

export function extractScript(ts: typeof TS, path: string, text: string): Extracted {
  const out = emptyExtracted();
  const kind = /\.tsx$/i.test(path) ? ts.ScriptKind.TSX : /\.(jsx|js|mjs|cjs)$/i.test(path) ? ts.ScriptKind.JSX : ts.ScriptKind.TS;
  const sf = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, kind);
  const lineOf = (n: TS.Node) => sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1;
  const imported = new Set<string>();
  const consumed = new WeakSet<TS.Node>();

  const str = (n: TS.Node | undefined): string | undefined =>
    n && (ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n)) ? n.text : undefined;

  const propName = (p: TS.ObjectLiteralElementLike): string | undefined =>
    p.name && (ts.isIdentifier(p.name) || ts.isStringLiteral(p.name)) ? p.name.text : undefined;

  const prop = (obj: TS.ObjectLiteralExpression, name: string): TS.Expression | undefined => {
    for (const p of obj.properties) if (ts.isPropertyAssignment(p) && propName(p) === name) return p.initializer;
    return undefined;
  };

  const routeFramework = (receiver: string | undefined, fallback: string) => {
    for (const f of ['express', 'fastify', 'hono', 'koa']) if (imported.has(f)) return f;
    if (receiver && /fastify/i.test(receiver)) return 'fastify';
    return fallback;
  };

  const rootName = (e: TS.Expression): string | undefined => {
    let cur: TS.Expression = e;
    while (ts.isPropertyAccessExpression(cur) || ts.isCallExpression(cur)) cur = cur.expression;
    return ts.isIdentifier(cur) ? cur.text : cur.kind === ts.SyntaxKind.ThisKeyword ? 'this' : undefined;
  };

  const isFunctionLike = (n: TS.Node) => ts.isArrowFunction(n) || ts.isFunctionExpression(n);

  // Imports first: they tell which framework a file's routes belong to.
  for (const st of sf.statements) {
    if (ts.isImportDeclaration(st) && ts.isStringLiteral(st.moduleSpecifier)) noteImport(st.moduleSpecifier.text);
  }
  function noteImport(spec: string) {
    for (const [re, name] of frameworkImports) if (re.test(spec)) imported.add(name);
  }

  function visitCall(node: TS.CallExpression) {
    const callee = node.expression;
    if (ts.isIdentifier(callee) && callee.text === 'require' && str(node.arguments[0])) noteImport(str(node.arguments[0])!);
    if (ts.isIdentifier(callee) && routerFactories.has(callee.text) && node.arguments[0] && ts.isArrayLiteralExpression(node.arguments[0])) {
      routeObjects(node.arguments[0], '');
      return;
    }
    if (!ts.isPropertyAccessExpression(callee)) return;
    const method = callee.name.text;
    const receiver = callee.expression;
    // app.on('GET', '/x', h) — Hono's multi-method form.
    if (method === 'on' && node.arguments.length >= 3) {
      const path = str(node.arguments[1]);
      const methods = methodList(node.arguments[0]);
      if (path && isRoutePath(path) && methods.length) {
        for (const m of methods) out.surfaces.push({ kind: 'http_route', method: m, path, file: sfPath, line: lineOf(node), framework: routeFramework(rootName(receiver), 'hono') });
      }
      return;
    }
    if (!httpMethods.has(method)) return;
    // router.route('/x').get(h).post(h) — Express's chained form.
    const chained = chainedRoutePath(receiver);
    if (chained) {
      out.surfaces.push({ kind: 'http_route', method: normaliseMethod(method)!, path: chained, file: sfPath, line: lineOf(node), framework: routeFramework(rootName(receiver), 'express') });
      return;
    }
    const path = str(node.arguments[0]);
    if (!path || !isRoutePath(path) || node.arguments.length < 2) return;
    const name = rootName(receiver);
    if (name && clientReceivers.test(name)) return;
    const last = node.arguments[node.arguments.length - 1];
    const handlerLike = isFunctionLike(last) || ts.isIdentifier(last) || ts.isPropertyAccessExpression(last) || ts.isCallExpression(last) || ts.isArrayLiteralExpression(last);
    const serverLike = (name !== undefined && serverReceivers.test(name)) || imported.has('express') || imported.has('fastify') || imported.has('hono') || imported.has('koa');
    if (!handlerLike || !serverLike) return;
    // fastify.get('/x', { schema }, h) and app.get('/x', mw, h) both end in the handler.
    if (!isFunctionLike(last) && !(name && serverReceivers.test(name))) return;
    out.surfaces.push({ kind: 'http_route', method: normaliseMethod(method)!, path, file: sfPath, line: lineOf(node), framework: routeFramework(name, 'unknown') });
  }

  function chainedRoutePath(receiver: TS.Expression): string | undefined {
    let cur = receiver;
    // Walk back over .get(h).post(h) links to the .route('/x') call.
    while (ts.isCallExpression(cur) && ts.isPropertyAccessExpression(cur.expression)) {
      const name = cur.expression.name.text;
      if (name === 'route') {
        const p = str(cur.arguments[0]);
        return p && isRoutePath(p) ? p : undefined;
      }
      if (!httpMethods.has(name)) return undefined;
      cur = cur.expression.expression;
    }
    return undefined;
  }

  function methodList(n: TS.Expression | undefined): string[] {
    if (!n) return [];
    const one = str(n);
    if (one !== undefined) {
      const m = normaliseMethod(one);
      return m ? [m] : [];
    }
    if (ts.isArrayLiteralExpression(n)) return n.elements.flatMap((e) => methodList(e as TS.Expression));
    return [];
  }

  /** `{ method: 'GET', url: '/x' }` or `{ method: 'get', path: '/x' }` — a declared route. */
  function visitObject(node: TS.ObjectLiteralExpression) {
    if (consumed.has(node)) return;
    const methods = methodList(prop(node, 'method'));
    const path = str(prop(node, 'url')) ?? str(prop(node, 'path'));
    if (!methods.length || !path || !isRoutePath(path)) return;
    const parent = node.parent;
    let framework = 'object-route';
    if (ts.isCallExpression(parent) && ts.isPropertyAccessExpression(parent.expression) && parent.expression.name.text === 'route') framework = routeFramework(rootName(parent.expression.expression), 'fastify');
    else if (imported.has('hono')) framework = 'hono';
    else if (imported.has('fastify')) framework = 'fastify';
    const summary = str(prop(node, 'summary')) ?? str(prop(node, 'operationId'));
    for (const m of methods) out.surfaces.push({ kind: 'http_route', method: m, path, file: sfPath, line: lineOf(node), framework, ...(summary ? { name: summary } : {}) });
  }

  /** React Router route objects: `[{ path, element, children: [...] }]`, nested paths joined. */
  function routeObjects(arr: TS.ArrayLiteralExpression, parentPath: string) {
    for (const el of arr.elements) {
      if (!ts.isObjectLiteralExpression(el)) continue;
      consumed.add(el);
      const p = str(prop(el, 'path'));
      const index = prop(el, 'index');
      const full = p !== undefined ? joinPaths(parentPath || '/', p) : parentPath;
      if (p !== undefined || (index && index.kind === ts.SyntaxKind.TrueKeyword)) {
        out.surfaces.push({ kind: 'client_route', method: 'GET', path: full || '/', file: sfPath, line: lineOf(el), framework: 'react-router' });
      }
      const children = prop(el, 'children');
      if (children && ts.isArrayLiteralExpression(children)) routeObjects(children, full);
    }
  }

  const sfPath = path;

  function jsxAttrs(attributes: TS.JsxAttributes): Record<string, string> {
    const attrs: Record<string, string> = {};
    for (const a of attributes.properties) {
      if (!ts.isJsxAttribute(a)) continue;
      const name = a.name.getText(sf);
      const init = a.initializer;
      if (!init) attrs[name] = 'true';
      else if (ts.isStringLiteral(init)) attrs[name] = init.text;
      else if (ts.isJsxExpression(init) && init.expression && str(init.expression) !== undefined) attrs[name] = str(init.expression)!;
    }
    return attrs;
  }

  function tagName(n: TS.JsxOpeningLikeElement) {
    return n.tagName.getText(sf);
  }

  /** `<Route path>` nested inside other `<Route>`s: the full path joins the ancestors'. */
  function jsxRoutePath(n: TS.JsxOpeningLikeElement, own: string): string {
    let path = own;
    let cur: TS.Node | undefined = ts.isJsxOpeningElement(n) ? n.parent.parent : n.parent;
    while (cur && !ts.isSourceFile(cur)) {
      if (ts.isJsxElement(cur) && tagName(cur.openingElement) === 'Route') {
        const parentPath = jsxAttrs(cur.openingElement.attributes).path;
        if (parentPath !== undefined) path = joinPaths(parentPath, path);
        if (path.startsWith('/')) break;
      }
      cur = cur.parent;
    }
    return path.startsWith('/') || path === '*' ? path : `/${path}`;
  }

  function visitJsx(n: TS.JsxOpeningLikeElement) {
    const tag = tagName(n);
    const attrs = jsxAttrs(n.attributes);
    if (tag === 'Route' || tag.endsWith('.Route')) {
      if (attrs.path !== undefined || attrs.index === 'true') {
        out.surfaces.push({ kind: 'client_route', method: 'GET', path: jsxRoutePath(n, attrs.path ?? ''), file: sfPath, line: lineOf(n), framework: 'react-router' });
      }
      return;
    }
    const element = elementFrom(tag, attrs);
    if (element) out.elements.push({ file: sfPath, line: lineOf(n), ...element });
    if (tag === 'form' || tag === 'Form') {
      const form: UiForm = { file: sfPath, line: lineOf(n), fields: [] };
      if (attrs.action) form.action = attrs.action;
      if (attrs.method) form.method = attrs.method.toUpperCase();
      const sel = element?.selector ?? (attrs.id ? `form#${attrs.id}` : attrs.name ? `form[name="${attrs.name}"]` : undefined);
      if (sel) form.selector = sel;
      if (ts.isJsxOpeningElement(n)) collectFields(n.parent, form);
      out.forms.push(form);
    }
  }

  function collectFields(el: TS.JsxElement, form: UiForm) {
    const walk = (node: TS.Node) => {
      if (ts.isJsxSelfClosingElement(node) || ts.isJsxOpeningElement(node)) {
        const tag = tagName(node);
        if (isFieldTag(tag)) form.fields.push(fieldFrom(tag, jsxAttrs(node.attributes)));
      }
      ts.forEachChild(node, walk);
    };
    ts.forEachChild(el, walk);
  }

  const visit = (node: TS.Node) => {
    if (ts.isCallExpression(node)) visitCall(node);
    else if (ts.isObjectLiteralExpression(node)) visitObject(node);
    else if (ts.isJsxSelfClosingElement(node) || ts.isJsxOpeningElement(node)) visitJsx(node);
    ts.forEachChild(node, visit);
  };
  visit(sf);

  out.frameworks = [...imported];
  return out;
}

/** Names exported by a Next.js route handler file (`export async function GET`, `export const POST =`). */
export function exportedNames(ts: typeof TS, path: string, text: string): Array<{ name: string; line: number }> {
  const sf = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, /\.tsx?$/i.test(path) ? ts.ScriptKind.TSX : ts.ScriptKind.JSX);
  const out: Array<{ name: string; line: number }> = [];
  const line = (n: TS.Node) => sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1;
  const exported = (n: TS.Node) => ts.canHaveModifiers(n) && (ts.getModifiers(n) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
  for (const st of sf.statements) {
    if (ts.isFunctionDeclaration(st) && st.name && exported(st)) out.push({ name: st.name.text, line: line(st) });
    else if (ts.isVariableStatement(st) && exported(st)) {
      for (const d of st.declarationList.declarations) if (ts.isIdentifier(d.name)) out.push({ name: d.name.text, line: line(d) });
    } else if (ts.isExportDeclaration(st) && st.exportClause && ts.isNamedExports(st.exportClause)) {
      for (const e of st.exportClause.elements) out.push({ name: e.name.text, line: line(e) });
    }
  }
  return out;
}
