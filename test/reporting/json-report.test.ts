import { describe, expect, it } from 'vitest';
import { JsonReport, REPORT_SCHEMA, jsonReportSchema, renderJsonReport } from '@svc/core/reporting/json-report';
import { CONTROL_NAME, SCRIPT_NAME, UNICODE_NAME, makeSummary, passedLogin } from './fixtures.ts';

describe('JSON report', () => {
  const summary = makeSummary();
  const text = renderJsonReport(summary);
  const report = JSON.parse(text);

  it('is valid JSON in the documented shape (strict schema)', () => {
    expect(() => JsonReport.parse(report)).not.toThrow();
    expect(report.schema).toBe(REPORT_SCHEMA);
    expect(report.schema).toBe('svc.report/v1');
    expect(Object.keys(report)).toEqual(['schema', 'run', 'tests']);
    expect(text.endsWith('}\n')).toBe(true);
  });

  it('publishes its JSON Schema (draft 2020-12), generated from the same zod schema', () => {
    const schema = jsonReportSchema() as { $schema: string; required: string[]; additionalProperties: boolean; properties: Record<string, { required?: string[] }> };
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(schema.required).toEqual(['schema', 'run', 'tests']);
    expect(schema.additionalProperties).toBe(false);
    expect(schema.properties.run.required).toEqual(Object.keys(report.run));
  });

  it('carries the totals and timing of the run', () => {
    expect(report.run).toMatchObject({
      id: summary.run_id,
      name: summary.name,
      base_url: summary.base_url,
      started_at: summary.started_at,
      finished_at: summary.finished_at,
      duration_ms: 40_400,
      workers: 2,
      total: 8,
      passed: 3,
      failed: 3,
      healed: 1,
      skipped: 1,
    });
    // (3 passed + 1 healed) / (8 − 1 skipped)
    expect(report.run.pass_rate).toBeCloseTo(4 / 7, 4);
    expect(report.tests).toHaveLength(8);
  });

  it('reports a failure with its kind, message, stack and failing step', () => {
    const t = report.tests.find((x: { id: string }) => x.id === 'checkout-buy');
    expect(t.status).toBe('failed');
    expect(t.error).toEqual({
      kind: 'locator',
      message: expect.stringContaining('No element matches #buy-now'),
      stack: expect.stringContaining('PlaywrightSession.perform'),
      step: 2,
      step_description: 'click "#buy-now"',
    });
    expect(t.steps.map((s: { status: string }) => s.status)).toEqual(['passed', 'passed', 'failed', 'skipped']);
    expect(t.steps[1].name).toBe('Accept cookies');
    expect(t.steps[2].error).toEqual({ kind: 'locator', message: 'No element matches #buy-now (waited 5000 ms)' });
    expect(t.screenshots).toEqual(['runs/r1/checkout-buy/failure.png', 'runs/r1/checkout-buy/missing.png']);
    expect(t.trace).toBe('runs/r1/checkout-buy/trace.zip');
    expect(t.console_errors).toEqual(['Uncaught TypeError: cart is undefined']);
    expect(t.failed_requests[0]).toMatchObject({ method: 'POST', failure: 'net::ERR_CONNECTION_REFUSED' });
  });

  it('lists healed selectors, and a passed test has no error', () => {
    const t = report.tests.find((x: { id: string }) => x.id === 'search-healed');
    expect(t.status).toBe('healed');
    expect(t.error).toBeNull();
    expect(t.healed_selectors).toEqual([
      { step: 1, original: '#q', healed: 'input[name="query"]', confidence: 0.93 },
      { step: 3, original: '.result | .item', healed: '[data-testid="result"]', confidence: 0.81 },
    ]);
    expect(t.steps[1].healed).toEqual({ original: '#q', healed: 'input[name="query"]', confidence: 0.93 });
  });

  it('keeps the skipped reason, and leaves out the fingerprints', () => {
    const t = report.tests.find((x: { id: string }) => x.id === 'db-orders-count');
    expect(t.status).toBe('skipped');
    expect(t.error).toMatchObject({ kind: 'configuration', message: 'DATABASE_URL is not set for this project' });
    expect(text).not.toContain('fingerprints');
  });

  it('keeps markup and unicode as data, and strips control characters', () => {
    const names = report.tests.map((t: { name: string }) => t.name);
    expect(names).toContain(SCRIPT_NAME);
    expect(names).toContain(UNICODE_NAME);
    expect(names).toContain('bell escape[31m nul lone end');
    expect(names).not.toContain(CONTROL_NAME);
    expect(text).not.toMatch(/\\u000[0-8]|\\u001b|\\ud800/i);
  });

  it('is stable: the same summary renders to the same bytes', () => {
    expect(renderJsonReport(makeSummary())).toBe(text);
  });

  it('serializes any metadata safely (bigint, cycles, dates, undefined)', () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    const odd = { ...passedLogin, metadata: { big: 10n, when: new Date(0), gone: undefined, fn: () => 1, cyclic, nan: Number.NaN } };
    const parsed = JSON.parse(renderJsonReport(makeSummary([odd])));
    expect(parsed.tests[0].metadata).toEqual({ big: '10', when: '1970-01-01T00:00:00.000Z', cyclic: { a: 1, self: '[circular]' }, nan: null });
  });

  it('renders an empty run', () => {
    const parsed = JSON.parse(renderJsonReport(makeSummary([])));
    expect(parsed.run.total).toBe(0);
    expect(parsed.run.pass_rate).toBeNull();
    expect(parsed.tests).toEqual([]);
  });
});
