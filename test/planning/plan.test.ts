import { describe, expect, it } from 'vitest';
import { changedFilesFromDiff } from '../../packages/core/src/intelligence/planning/diff.ts';
import { buildPlan, priorityOf, riskScore } from '../../packages/core/src/intelligence/planning/plan.ts';

const diff = [
  'diff --git a/src/routes/checkout.ts b/src/routes/checkout.ts',
  'index 1..2 100644',
  '--- a/src/routes/checkout.ts',
  '+++ b/src/routes/checkout.ts',
  '@@ -1,2 +1,3 @@',
  ' keep',
  '-old',
  '+new',
  '+newer',
  'diff --git a/docs/readme.md b/docs/readme.md',
  'deleted file mode 100644',
  '--- a/docs/readme.md',
  '+++ /dev/null',
  '@@ -1 +0,0 @@',
  '-gone',
].join('\n');

describe('diff parsing', () => {
  it('reads changed paths with line counts and deletions', () => {
    expect(changedFilesFromDiff(diff)).toEqual([
      { path: 'src/routes/checkout.ts', added: 2, removed: 1, deleted: false },
      { path: 'docs/readme.md', added: 0, removed: 1, deleted: true },
    ]);
    expect(changedFilesFromDiff('not a diff')).toEqual([]);
  });
});

describe('planning', () => {
  it('ranks changed, sensitive, data-changing surfaces first and says why', () => {
    const plan = buildPlan({
      surfaces: [
        { kind: 'http_route', method: 'GET', path: '/about', file: 'src/routes/about.ts' },
        { kind: 'http_route', method: 'POST', path: '/checkout', file: 'src/routes/checkout.ts' },
        { kind: 'page', method: 'GET', path: '/products/:id', file: 'src/pages/product.tsx' },
      ],
      diff,
    });
    expect(plan.items.map((i) => [i.target, i.priority])).toEqual([
      ['POST /checkout', 'CRITICAL'],
      ['GET /products/:id', 'LOW'],
      ['GET /about', 'LOW'],
    ]);
    expect(plan.items[0].reasons).toEqual(['sensitive area (auth, payment, account or admin)', 'POST changes data', 'changed in this diff: src/routes/checkout.ts']);
    expect(plan.items[0].risk_score).toBe(1);
    expect(plan.summary).toEqual({ CRITICAL: 1, HIGH: 0, MEDIUM: 0, LOW: 2 });
    expect(plan.changed_files).toEqual(['src/routes/checkout.ts', 'docs/readme.md']);
  });

  it('uses discovered pages and flows', () => {
    const plan = buildPlan({
      pages: [
        { url: 'http://a.test/login', page_type: 'auth', importance_score: 0.9, risk_score: 0.7 },
        { url: 'http://a.test/about', page_type: 'content', importance_score: 0.3, risk_score: 0.2 },
      ],
      flows: [{ name: 'Sign in (/login)', flow_type: 'authentication' }],
      changed_files: ['src/login/form.tsx'],
    });
    expect(plan.items[0]).toEqual(expect.objectContaining({ target: 'http://a.test/login', priority: 'CRITICAL' }));
    expect(plan.items[0].reasons).toContain('changed in this diff: src/login/form.tsx');
    expect(plan.items.at(-1)).toEqual(expect.objectContaining({ target: 'http://a.test/about', priority: 'LOW' }));
  });

  it('scores one target, or changes that touch nothing known', () => {
    expect(riskScore({ surfaces: [{ kind: 'http_route', method: 'DELETE', path: '/admin/users/:id' }], target: '/admin' })).toEqual(expect.objectContaining({ priority: 'HIGH', score: 0.7 }));
    expect(riskScore({ changed_files: ['a.ts', 'b.ts'] })).toEqual({ score: 0.2, priority: 'LOW', reasons: ['2 files changed, no known surface touched'], items: [] });
    expect([priorityOf(0.8), priorityOf(0.6), priorityOf(0.4), priorityOf(0.39)]).toEqual(['CRITICAL', 'HIGH', 'MEDIUM', 'LOW']);
  });
});
