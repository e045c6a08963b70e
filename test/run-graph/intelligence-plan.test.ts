/**
 * plan_tests' prioritisation (run-graph/plan-priorities.ts) on its own: which surfaces a
 * stored test exercises, how the planning module scores them, and the order that follows.
 */
import { describe, expect, it } from 'vitest';
import { TestSpecSchema, type TestSpec } from '@svc/core/contracts/test-spec';
import { prioritiseTests } from '@svc/core/run-graph/plan-priorities';
import type { CodeSurface } from '@svc/core/run-graph/surfaces';

const spec = (id: string, steps: unknown[], priority = 'MEDIUM'): TestSpec => TestSpecSchema.parse({ id, type: 'API', name: id, priority, steps });
const req = (url: string, method = 'GET') => ({ type: 'request', method, url });
const code = (method: string, path: string, file: string, line = 1): CodeSurface => ({ kind: 'code', surface_kind: 'http_route', method, path, file, line, framework: 'express' });

const surfaces = [
  code('GET', '/api/orders', 'src/orders.js', 3),
  code('GET', '/api/orders/:id', 'src/orders.js', 9),
  code('ANY', '/api/health', 'src/health.js'),
  code('GET', '/docs/*', 'src/docs.js'),
];

describe('prioritiseTests', () => {
  it('matches requests to code surfaces by method and path pattern (params, ANY, catch-all; query and host ignored)', () => {
    const planned = prioritiseTests([
      spec('one', [req('http://shop.test/api/orders/42?expand=1')]),
      spec('health', [req('/api/health', 'POST')]),
      spec('docs', [req('{{base}}/docs/a/b')]),
      spec('templated', [req('/api/orders/{{id}}')]),
    ], surfaces, []);
    const by = Object.fromEntries(planned.map((p) => [p.test_id, p.surfaces]));
    expect(by.one).toEqual(['GET /api/orders/:id (src/orders.js:9)']);
    expect(by.health).toEqual(['ANY /api/health (src/health.js:1)']);
    expect(by.docs).toEqual(['GET /docs/* (src/docs.js:1)']);
    expect(by.templated).toEqual([]); // a parameterised path names no one surface
    expect(planned.find((p) => p.test_id === 'templated')).toMatchObject({ planned_priority: null, priority: 'MEDIUM', reasons: ['exercises no page or request the planner can score'] });
  });

  it("matches Next.js catch-alls (the analyser's :slug* and optional :slug*?) and optional parameters (:id?) across their segments (found by QA: :slug* matched one segment only, so a changed catch-all page did not put its tests first)", () => {
    const next = [
      { ...code('GET', '/docs/:slug*', 'app/docs/[...slug]/page.tsx'), surface_kind: 'page' as const, framework: 'nextjs' },
      { ...code('GET', '/shop/:path*?', 'app/shop/[[...path]]/page.tsx'), surface_kind: 'page' as const, framework: 'nextjs' },
      code('GET', '/users/:id?', 'src/users.js'),
    ];
    const tests = [
      spec('home', [{ type: 'goto', url: '/' }], 'HIGH'),
      spec('deep-doc', [{ type: 'goto', url: '/docs/getting-started/install' }]),
      spec('shop-root', [{ type: 'goto', url: '/shop' }]),
      spec('shop-deep', [{ type: 'goto', url: '/shop/shoes/red' }]),
      spec('users', [req('/users')]),
      spec('user', [req('/users/7')]),
      spec('docs-root', [{ type: 'goto', url: '/docs' }]),
    ];
    const planned = prioritiseTests(tests, next, ['app/docs/[...slug]/page.tsx']);
    const by = Object.fromEntries(planned.map((p) => [p.test_id, p.surfaces]));
    expect(by['deep-doc']).toEqual(['GET /docs/:slug* (app/docs/[...slug]/page.tsx:1)']);
    expect(by['docs-root']).toEqual(['GET /docs']); // [...slug] needs a segment; [[...path]] does not
    expect(by['shop-root']).toEqual(['GET /shop/:path*? (app/shop/[[...path]]/page.tsx:1)']);
    expect(by['shop-deep']).toEqual(['GET /shop/:path*? (app/shop/[[...path]]/page.tsx:1)']);
    expect(by.users).toEqual(['GET /users/:id? (src/users.js:1)']);
    expect(by.user).toEqual(['GET /users/:id? (src/users.js:1)']);
    expect(planned[0]).toMatchObject({ test_id: 'deep-doc', changed: true });
  });

  it('puts tests on changed surfaces first, then priority, then risk; ties keep the given order', () => {
    const tests = [
      spec('list', [req('/api/orders')]),
      spec('health', [req('/api/health')], 'HIGH'),
      spec('get', [req('/api/orders/1')]),
      spec('docs', [req('/docs/x')]),
      spec('docs2', [req('/docs/y')]),
    ];
    expect(prioritiseTests(tests, surfaces, []).map((p) => p.test_id)).toEqual(['health', 'get', 'list', 'docs', 'docs2']);
    const changed = prioritiseTests(tests, surfaces, ['src/docs.js']);
    expect(changed.map((p) => p.test_id)).toEqual(['docs', 'docs2', 'health', 'get', 'list']);
    expect(changed[0]).toMatchObject({ changed: true, reasons: expect.arrayContaining(['changed in this diff: src/docs.js']) });
  });

  it('without code surfaces a test is scored on its own pages and requests', () => {
    const planned = prioritiseTests([spec('home', [{ type: 'goto', url: '/' }], 'LOW'), spec('checkout', [{ type: 'goto', url: '/checkout' }, req('/api/pay', 'POST')], 'LOW')], [], ['web/checkout/page.tsx']);
    expect(planned.map((p) => p.test_id)).toEqual(['checkout', 'home']);
    expect(planned[0]).toMatchObject({ changed: true, stored_priority: 'LOW', surfaces: ['GET /checkout', 'POST /api/pay'] });
    expect(planned[0].priority).toBe('CRITICAL');
    expect(planned[0].spec.priority).toBe('CRITICAL');
    expect(planned[1]).toMatchObject({ priority: 'LOW', changed: false });
  });
});
