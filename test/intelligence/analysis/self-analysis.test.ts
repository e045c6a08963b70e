import { describe, it, expect } from 'vitest';
import { join } from 'node:path';
import { analyzeFiles } from '@svc/core/intelligence/analysis/index';
import { readRepository } from '../../../packages/functions/src/intelligence/read-repository.ts';

const functionsDir = join(import.meta.dirname, '..', '..', '..', 'packages', 'functions');

describe('code analysis of this repository', () => {
  it('finds the Hono API routes declared with mountRoute({ method, path })', async () => {
    const read = await readRepository(functionsDir);
    const a = await analyzeFiles(read.files, { skipped: read.skipped });
    const api = a.surfaces.filter((s) => s.file.startsWith('src/api/routes/'));
    const found = [...new Set(api.map((s) => `${s.method} ${s.path}`))];
    for (const route of ['GET /api/tests', 'GET /api/tests/:id', 'POST /api/tests', 'POST /api/analyze', 'GET /api/v1/projects', 'POST /api/v1/projects']) {
      expect(found, route).toContain(route);
    }
    const tests = api.find((s) => s.path === '/api/tests/:id')!;
    expect(tests).toMatchObject({ framework: 'hono', file: 'src/api/routes/tests.ts', kind: 'http_route' });
    expect(a.summary.frameworks).toContain('hono');
    expect(a.summary.languages[0].language).toBe('TypeScript');
  });
});
