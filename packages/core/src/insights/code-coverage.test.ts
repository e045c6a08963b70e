import { describe, expect, it } from 'vitest';
import { codeCoverage, routeMatcher } from './code-coverage.ts';
import type { CodebaseIngestion } from '../contracts/codebase-ingestions.ts';
import type { Surface } from '../intelligence/analysis/types.ts';
import type { RunHistory } from './history.ts';

describe('routeMatcher', () => {
  it('matches Express-style paths: params, optional params, the rest', () => {
    const items = routeMatcher('/api/items/:id');
    expect(['/api/items/7', '/api/items/abc'].every(items)).toBe(true);
    expect(['/api/items', '/api/items/7/parts', '/api/itemsX/7'].some(items)).toBe(false);
    const optional = routeMatcher('/users/:id?');
    expect(['/users', '/users/3'].every(optional)).toBe(true);
    expect(optional('/users/3/x')).toBe(false);
    const rest = routeMatcher('/files/*');
    expect(['/files', '/files/a', '/files/a/b.txt'].every(rest)).toBe(true);
    expect(routeMatcher('/docs/:slug*')('/docs/a/b')).toBe(true);
    expect(routeMatcher('/')('/')).toBe(true);
    expect(routeMatcher('/')('/x')).toBe(false);
    expect(routeMatcher('/a.b')('/aXb')).toBe(false); // literal dots
  });

  it('matches a client route in the hash of a hash router, only for client routes', () => {
    expect(routeMatcher('/cart', true)('/#/cart')).toBe(true);
    expect(routeMatcher('/cart', false)('/#/cart')).toBe(false);
    expect(routeMatcher('/cart', true)('/cart')).toBe(true);
  });
});

describe('codeCoverage', () => {
  const ingestion: CodebaseIngestion = {
    id: '0196a000-0000-7000-8000-000000000001', project_id: '0196a000-0000-7000-8000-000000000002', status: 'analyzed', source: { kind: 'inline', file_count: 1 },
    codebase_path: 'inline upload', commit_sha: 'abc', include_content: false, created_at: '2026-11-27T10:00:00.000Z', created_by: null,
    finished_at: '2026-11-27T10:00:01.000Z', error: null, summary: null, surface_count: 4, partial: false,
  };
  const surface = (kind: Surface['kind'], method: string, path: string): Surface => ({ kind, method, path, file: 'app.js', line: 1, framework: 'express' });
  const t1 = '0196a000-0000-7000-8000-00000000000a';
  const t2 = '0196a000-0000-7000-8000-00000000000b';
  const tests = new Map([
    [t1, { id: t1, name: 'order api', steps: [{ type: 'request', method: 'post', url: '{{env.API}}/orders/{{id}}/pay' }] }],
    [t2, { id: t2, name: 'checkout page', steps: [{ type: 'goto', url: '/checkout' }] }],
  ]);
  const execution = (testId: string, status: 'passed' | 'failed', pages: string[] = []) => ({
    test_id: testId, case_id: testId, run_id: 'r', status, retry_flake: false, duration_ms: 5, error_message: null, created_at: '2026-11-27T11:00:00.000Z', pages_visited: pages,
  });

  it('endpoints by method and path (variables stand for a segment), pages by goto or visit, latest execution decides', () => {
    const history = { window: { runs: 1, from: null, to: null, executions: 2 }, runs: [{ run: {} as never, executions: [execution(t1, 'failed'), execution(t2, 'passed', ['http://h/checkout', 'http://h/thanks?order=1'])] }] } as unknown as RunHistory;
    const out = codeCoverage({
      ingestion, tests, history, appUrl: 'http://h',
      surfaces: [surface('api_route', 'POST', '/orders/:id/pay'), surface('api_route', 'GET', '/orders/:id/pay'), surface('page', 'GET', '/checkout'), surface('page', 'GET', '/thanks'), surface('page', 'GET', '/admin')],
    });
    expect(out.surfaces.map((s) => `${s.method} ${s.path} ${s.state}`)).toEqual([
      'POST /orders/:id/pay failing',
      'GET /orders/:id/pay uncovered',
      'GET /checkout covered',
      'GET /thanks covered',
      'GET /admin uncovered',
    ]);
    expect(out.surfaces[3].tests).toEqual([{ test_id: t2, name: 'checkout page' }]);
    expect(out.summary).toEqual({ surfaces: 5, covered: 2, failing: 1, declared: 0, uncovered: 2, coverage: 0.6 });
    expect(out).toMatchObject({ ingestion_id: ingestion.id, commit_sha: 'abc' });
  });

  it('a test that reaches a surface but did not run in the window declares it', () => {
    const history = { window: { runs: 0, from: null, to: null, executions: 0 }, runs: [] } as unknown as RunHistory;
    const out = codeCoverage({ ingestion, tests, history, appUrl: null, surfaces: [surface('http_route', 'ANY', '/orders/:id/pay'), surface('page', 'GET', '/checkout')] });
    expect(out.surfaces.map((s) => s.state)).toEqual(['declared', 'declared']);
    expect(out.summary.coverage).toBe(0);
  });
});
