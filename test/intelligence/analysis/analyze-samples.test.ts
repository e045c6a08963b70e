import { describe, it, expect, afterAll } from 'vitest';
import { analyzeFiles, type Analysis } from '@svc/core/intelligence/analysis/index';
import { Analysis as AnalysisSchema } from '@svc/core/intelligence/analysis/types';
import { readRepository } from '../../../packages/functions/src/intelligence/read-repository.ts';
import { sampleRepo, SENTINEL } from './sample-repos.ts';

const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const c of cleanups) await c();
});

async function analyse(name: string): Promise<Analysis> {
  const repo = await sampleRepo(name);
  cleanups.push(repo.remove);
  const read = await readRepository(repo.dir);
  const analysis = await analyzeFiles(read.files, { skipped: read.skipped, includeContent: true });
  expect(AnalysisSchema.parse(analysis)).toBeTruthy();
  // Spec rule 7: nothing that leaves the analyser carries a secret or a blocked file's text.
  const out = JSON.stringify(analysis);
  expect(out).not.toContain(SENTINEL);
  expect(out).not.toContain('AKIAIOSFODNN7EXAMPLE');
  expect(out).not.toContain('wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY');
  return analysis;
}

const routes = (a: Analysis, kind?: string) => a.surfaces.filter((s) => !kind || s.kind === kind).map((s) => `${s.method} ${s.path}`).sort();
const skippedReason = (a: Analysis, path: string) => a.skipped.find((s) => s.path === path)?.reason;

describe('code analysis: Express sample', () => {
  it('finds routes, the mounted router and the chained route; not the HTTP client call', async () => {
    const a = await analyse('express-shop');
    expect(routes(a, 'http_route')).toEqual(
      ['ANY /health', 'DELETE /session', 'GET /', 'GET /login', 'POST /login', 'GET /', 'POST /', 'GET /:id', 'PUT /:id', 'DELETE /:id'].sort(),
    );
    expect(a.surfaces.every((s) => s.framework === 'express')).toBe(true);
    const login = a.surfaces.find((s) => s.method === 'POST' && s.path === '/login')!;
    expect(login).toMatchObject({ file: 'src/server.js', line: 13 });
    expect(routes(a)).not.toContain('GET /inventory/sync');
    expect(a.summary.frameworks).toContain('express');
    expect(a.summary.entry_points).toContain('src/server.js');
  });

  it('reads the EJS login form with its fields and test ids', async () => {
    const a = await analyse('express-shop');
    expect(a.forms).toHaveLength(1);
    expect(a.forms[0]).toMatchObject({ file: 'views/login.ejs', action: '/login', method: 'POST', selector: '[data-testid="login-form"]' });
    expect(a.forms[0].fields.map((f) => f.name)).toEqual(['email', 'password', 'next', undefined]);
    const ids = a.elements.map((e) => e.test_id).filter(Boolean);
    expect(ids).toEqual(expect.arrayContaining(['login-error', 'login-form', 'email-input', 'password-input', 'login-submit', 'forgot-link']));
    expect(a.elements.find((e) => e.test_id === 'forgot-link')).toMatchObject({ test_attribute: 'data-cy', selector: '[data-cy="forgot-link"]' });
    expect(a.elements.find((e) => e.role === 'main')).toBeTruthy();
  });

  it('never opens environment and credential files, and says so', async () => {
    const a = await analyse('express-shop');
    expect(skippedReason(a, '.env')).toMatch(/blocked: environment file/);
    expect(skippedReason(a, '.npmrc')).toMatch(/blocked: credential file/);
    expect(skippedReason(a, 'deploy/id_rsa')).toMatch(/blocked: SSH key/);
    expect(skippedReason(a, 'deploy/server.pem')).toMatch(/blocked: key or certificate/);
    expect(skippedReason(a, '.aws')).toMatch(/blocked: AWS credentials folder/);
    expect(skippedReason(a, 'secrets.json')).toMatch(/blocked: secrets file/);
    expect(skippedReason(a, 'node_modules/')).toMatch(/dependency, build or VCS/);
    expect(skippedReason(a, 'dist/')).toMatch(/dependency, build or VCS/);
    expect(skippedReason(a, 'public/logo.bin.js')).toMatch(/binary/);
    expect(skippedReason(a, 'public/latin1.txt')).toMatch(/not UTF-8/);
    expect(skippedReason(a, 'linked.js')).toMatch(/symbolic link/);
    expect(skippedReason(a, 'linked-dir')).toMatch(/symbolic link/);
    expect(routes(a)).not.toContain('GET /leak');
    expect(routes(a)).not.toContain('GET /from-dist');
    expect(a.files.map((f) => f.path)).not.toContain('.env');
  });

  it('redacts secrets, flags personal data and classifies each file', async () => {
    const a = await analyse('express-shop');
    const secrets = a.secrets.map((s) => `${s.file}:${s.line} ${s.kind}`);
    expect(secrets).toEqual(expect.arrayContaining([
      'src/billing/test-data.js:3 aws_access_key',
      'src/billing/test-data.js:4 aws_secret_key',
      'config/db.js:4 connection_string_password',
      'config/db.js:6 assigned_secret',
    ]));
    expect(a.secrets.filter((s) => s.file === 'config/db.js')).toHaveLength(3);
    const pd = a.personal_data.filter((p) => p.file === 'src/billing/test-data.js').map((p) => `${p.line} ${p.kind}`);
    // the Luhn-invalid number on line 10 is not a card
    expect(pd).toEqual(['7 email', '8 us_ssn', '9 card_number']);
    const cls = Object.fromEntries(a.files.map((f) => [f.path, f.classification]));
    expect(cls['src/billing/test-data.js']).toBe('restricted');
    expect(cls['config/db.js']).toBe('restricted');
    expect(cls['src/routes/orders.js']).toBe('internal');
    expect(cls['package.json']).toBe('internal');
    expect(a.summary.highest_classification).toBe('restricted');
    const redacted = a.files.find((f) => f.path === 'config/db.js')!.content!;
    expect(redacted).toContain("postgres://shop:[REDACTED:connection_string_password]@db.internal:5432/shop");
    expect(redacted).toContain('password: "[REDACTED:assigned_secret]"');
    // code that merely mentions passwords is left alone
    const server = a.files.find((f) => f.path === 'src/server.js')!;
    expect(server.secrets_redacted).toBe(0);
  });

  it('summarises the codebase', async () => {
    const a = await analyse('express-shop');
    expect(a.summary.languages[0]).toMatchObject({ language: 'JavaScript', files: 4 });
    expect(a.summary.counts).toMatchObject({ http_routes: 10, forms: 1 });
    expect(a.summary.text).toMatch(/10 surfaces: 10 HTTP routes/);
    expect(a.summary.classification.restricted).toBe(2);
  });
});

describe('code analysis: Next.js sample (app and pages routers)', () => {
  it('turns files into pages and route handlers', async () => {
    const a = await analyse('next-app');
    expect(routes(a, 'page')).toEqual(['GET /', 'GET /about', 'GET /blog/:slug', 'GET /dashboard/settings', 'GET /docs/:path*', 'GET /legacy'].sort());
    expect(routes(a, 'api_route')).toEqual(['ANY /api/health', 'DELETE /api/orders/:id', 'GET /api/orders', 'GET /api/orders/:id', 'POST /api/orders'].sort());
    expect(a.surfaces.find((s) => s.path === '/api/orders' && s.method === 'POST')).toMatchObject({ framework: 'nextjs-app', file: 'app/api/orders/route.ts', line: 8 });
    expect(a.surfaces.find((s) => s.path === '/legacy')).toMatchObject({ framework: 'nextjs-pages' });
    expect(a.summary.frameworks).toEqual(expect.arrayContaining(['nextjs', 'react']));
  });

  it('finds the settings form and elements in TSX', async () => {
    const a = await analyse('next-app');
    const form = a.forms.find((f) => f.file === 'app/dashboard/settings/page.tsx')!;
    expect(form).toMatchObject({ action: '/api/settings', method: 'POST', selector: '[data-testid="settings-form"]' });
    expect(form.fields.map((f) => f.test_id ?? f.tag)).toEqual(['display-name', 'theme-select', 'button']);
    expect(a.elements.map((e) => e.test_id).filter(Boolean)).toEqual(expect.arrayContaining(['nav-home', 'home-title', 'post-body', 'legacy-notice']));
    expect(a.elements.find((e) => e.test_id === 'legacy-notice')?.test_attribute).toBe('data-test');
  });
});

describe('code analysis: React Router SPA', () => {
  it('joins nested route objects and nested <Route> elements', async () => {
    const a = await analyse('react-spa');
    expect(routes(a, 'client_route')).toEqual(
      ['GET /', 'GET /login', 'GET /products', 'GET /products/:productId', 'GET /products/:productId/reviews', 'GET /*', 'GET /account', 'GET /account/orders', 'GET /account/orders/:orderId', 'GET /account/profile'].sort(),
    );
    expect(a.surfaces.every((s) => s.framework === 'react-router')).toBe(true);
    expect(a.summary.frameworks).toEqual(expect.arrayContaining(['react', 'react-router']));
  });

  it('finds the login form, test ids, data-cy and roles', async () => {
    const a = await analyse('react-spa');
    const form = a.forms.find((f) => f.file === 'src/components/LoginForm.tsx')!;
    expect(form.fields.map((f) => f.selector)).toEqual(['[data-testid="email"]', '[data-cy="password"]', '[data-testid="submit-login"]']);
    expect(a.elements.find((e) => e.role === 'alert')).toMatchObject({ file: 'src/components/LoginForm.tsx', selector: '[role="alert"]' });
    expect(a.elements.find((e) => e.role === 'application')).toMatchObject({ file: 'index.html' });
  });
});

describe('code analysis: Fastify sample', () => {
  it('finds shorthand routes, routes with options and fastify.route declarations', async () => {
    const a = await analyse('fastify-api');
    expect(routes(a)).toEqual(['DELETE /pets/:id', 'GET /health', 'GET /pets/:id', 'HEAD /pets/:id', 'PATCH /owners/:id', 'POST /pets'].sort());
    expect(a.surfaces.every((s) => s.framework === 'fastify')).toBe(true);
    expect(a.summary.entry_points).toEqual(expect.arrayContaining(['src/server.ts']));
  });
});

describe('code analysis: OpenAPI documents', () => {
  it('reads operations from YAML and JSON with their operationIds', async () => {
    const a = await analyse('openapi');
    const ops = a.surfaces.map((s) => `${s.file} ${s.method} ${s.path} ${s.name}`).sort();
    expect(ops).toEqual([
      'inventory.json GET /items listItems',
      'inventory.json POST /items createItem',
      'inventory.json PUT /items/:sku replaceItem',
      'petstore.yaml DELETE /pets/:petId deletePet',
      'petstore.yaml GET /pets listPets',
      'petstore.yaml GET /pets/:petId showPetById',
      'petstore.yaml POST /pets createPets',
    ]);
    expect(a.surfaces.find((s) => s.name === 'createPets')?.line).toBe(21);
    expect(a.summary.frameworks).toContain('openapi');
    // the contact email is personal data: flagged, the file confidential
    expect(a.files.find((f) => f.path === 'petstore.yaml')?.classification).toBe('confidential');
  });
});

describe('code analysis: HTML and templates', () => {
  it('finds forms and static test ids; skips comments, scripts and bound attributes', async () => {
    const a = await analyse('static-site');
    const forms = a.forms.map((f) => `${f.file} ${f.method ?? ''} ${f.action ?? ''} ${f.fields.length}`).sort();
    expect(forms).toEqual(['components/Search.vue   2', 'index.html GET /search 1', 'index.html POST /subscribe 3', 'templates/signup.hbs POST /signup 3'].sort());
    const ids = a.elements.map((e) => e.test_id).filter(Boolean);
    expect(ids).toEqual(expect.arrayContaining(['home-link', 'subscribe-email', 'subscribe-submit', 'cookie-dialog', 'signup-form', 'signup-username', 'signup-submit', 'vue-search', 'vue-query']));
    expect(ids).not.toContain('not-real');
    expect(ids).not.toContain('commented-out');
    expect(ids.some((id) => id!.includes('{{'))).toBe(false);
    expect(a.forms.find((f) => f.action === '/subscribe')?.selector).toBe('form#subscribe');
    expect(a.elements.find((e) => e.role === 'search')).toMatchObject({ tag: 'form' });
  });
});
