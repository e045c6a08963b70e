import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseJUnit, type TestSuites } from 'junit2json';
import { parse } from 'parse5';
import { describe, expect, it } from 'vitest';
import { validateXML } from 'xmllint-wasm';
import type { TestExecutionResult } from '@svc/core/execution/types';
import type { AxeScan } from '@svc/core/contracts/accessibility';
import { judge } from '@svc/core/accessibility/check-accessibility';
import { renderHtmlReport } from '@svc/core/reporting/html-report';
import { JsonReport, jsonReportSchema, renderJsonReport } from '@svc/core/reporting/json-report';
import { renderJUnitReport } from '@svc/core/reporting/junit-report';
import { renderMarkdownReport } from '@svc/core/reporting/markdown-report';
import { failedAtLocator, healed, makeSummary, passedLogin } from './fixtures.ts';
import { Ajv2020, attr, elements, textOf, type Element } from './html-tree.ts';

/**
 * Accessibility outcomes in every report: a failed test with two violated rules (one of
 * them on more elements than are kept, one with text that must be escaped) and a passed
 * test whose check found nothing. The outcomes come from the assertion's own judge().
 */

const HOSTILE_HELP = 'Buttons must have <b>discernible</b> text & a name';
const scan: AxeScan = {
  url: 'http://127.0.0.1:3000/a11y',
  engine: '4.14.1',
  violations: [
    { id: 'color-contrast', impact: 'serious', help: 'Elements must meet minimum color contrast ratio thresholds', description: 'contrast', help_url: 'https://dequeuniversity.com/rules/axe/4.14/color-contrast?application=axeAPI', tags: ['wcag2aa'], node_count: 12, nodes: Array.from({ length: 10 }, (_, i) => ({ target: [`#faint-${i}`], html: `<p id="faint-${i}">`, failure_summary: 'Fix any of the following: insufficient contrast' })) },
    { id: 'button-name', impact: 'critical', help: HOSTILE_HELP, description: 'names', help_url: 'https://dequeuniversity.com/rules/axe/4.14/button-name?application=axeAPI', tags: ['wcag2a'], node_count: 1, nodes: [{ target: ['#icon-button'], html: '<button id="icon-button" type="submit">' }] },
    { id: 'region', impact: 'moderate', help: 'All page content should be contained by landmarks', description: 'region', help_url: 'https://dequeuniversity.com/rules/axe/4.14/region', tags: ['best-practice'], node_count: 1, nodes: [{ target: ['p'], html: '<p>' }] },
  ],
  violation_count: 3,
  passes: 17,
  incomplete: 1,
  inapplicable: 40,
};
const judged = judge(scan, { name: 'the page is accessible', minImpact: 'serious', maxViolations: 0, tags: ['wcag2a', 'wcag2aa'] });
const cleanOutcome = judge({ ...scan, violations: [], violation_count: 0 }, { name: 'the form is accessible', minImpact: 'serious', maxViolations: 0, tags: ['wcag2a'], selector: '#signup' });

const a11yPage: TestExecutionResult = {
  ...failedAtLocator,
  test_id: 'a11y',
  name: 'A11y page',
  failure_kind: 'assertion',
  failed_step: 1,
  error_message: `assertion 1 (expect the page to be accessible (serious or worse)): ${judged.message}`,
  stack_trace: undefined,
  screenshots: [],
  steps: [{ index: 0, type: 'goto', description: 'goto /a11y', status: 'passed', duration_ms: 100 }],
  accessibility: [judged],
};
const cleanPage: TestExecutionResult = { ...passedLogin, test_id: 'clean', name: 'Clean page', screenshots: [], steps: [], accessibility: [cleanOutcome] };
const summary = makeSummary([a11yPage, cleanPage, healed]);

describe('the outcome the reports show', () => {
  it('counts the violations at or above min_impact, most severe first, and names them in the message', () => {
    expect(judged.violations.map((v) => v.id)).toEqual(['button-name', 'color-contrast']);
    expect([judged.status, judged.counted, judged.below_threshold]).toEqual(['failed', 2, 1]);
    expect(judged.message).toBe(`accessibility: 2 rules violated at or above serious (0 allowed): button-name (critical, 1 element: #icon-button) ${HOSTILE_HELP}; color-contrast (serious, 12 elements: #faint-0, #faint-1, #faint-2, +9 more) Elements must meet minimum color contrast ratio thresholds`);
    expect(cleanOutcome).toMatchObject({ status: 'passed', counted: 0, selector: '#signup' });
  });
});

describe('accessibility outcomes in the HTML report', () => {
  const all = elements(parse(renderHtmlReport(summary)));
  const items = all.filter((e) => (attr(e, 'class') ?? '').split(/\s+/).includes('a11y'));

  it('shows each check with its status and summary, and a row per violated rule with impact, help link and elements', () => {
    expect(items.map((li) => attr(li, 'data-status'))).toEqual(['failed', 'passed']);
    expect(textOf(items[0])).toContain('2 rules violated at or above serious (0 allowed; 1 below serious not counted)');
    const rows = elements(items[0]).filter((e) => e.tagName === 'tr' && attr(e, 'data-rule'));
    expect(rows.map((r) => attr(r, 'data-rule'))).toEqual(['button-name', 'color-contrast']);
    const cells = (r: Element) => elements(r).filter((e) => e.tagName === 'td').map(textOf);
    expect(cells(rows[0])).toEqual(['button-name', 'critical', HOSTILE_HELP, '1: #icon-button']);
    expect(cells(rows[1])[3]).toBe('12: #faint-0 #faint-1 #faint-2 #faint-3 #faint-4 #faint-5 #faint-6 #faint-7 #faint-8 #faint-9 +2 more');
    const link = elements(rows[0]).find((e) => e.tagName === 'a')!;
    expect(attr(link, 'href')).toBe(scan.violations[1].help_url);
    // Page text is escaped, never markup.
    expect(elements(rows[0]).some((e) => e.tagName === 'b')).toBe(false);
    expect(textOf(items[1])).toContain('no violations at or above serious (17 rules passed)');
  });
});

describe('accessibility outcomes in the JSON report', () => {
  const report = JSON.parse(renderJsonReport(summary));

  it('validates against its zod schema and its published JSON Schema, and carries the outcomes', () => {
    expect(() => JsonReport.parse(report)).not.toThrow();
    const validate = new Ajv2020({ strict: false }).compile(jsonReportSchema());
    expect(validate(report), JSON.stringify(validate.errors)).toBe(true);
    expect(report.tests[0].accessibility).toEqual([JSON.parse(JSON.stringify(judged))]);
    expect(report.tests[1].accessibility[0]).toMatchObject({ status: 'passed', selector: '#signup' });
    expect('accessibility' in report.tests[2]).toBe(false);
    const broken = structuredClone(report);
    broken.tests[0].accessibility[0].min_impact = 'severe';
    expect(validate(broken)).toBe(false);
  });

  it('documents accessibility as an optional property', () => {
    const schema = jsonReportSchema() as { properties: { tests: { items: { required: string[]; properties: Record<string, unknown> } } } };
    expect(schema.properties.tests.items.properties.accessibility).toBeDefined();
    expect(schema.properties.tests.items.required).not.toContain('accessibility');
  });
});

describe('accessibility outcomes in the Markdown report', () => {
  const md = renderMarkdownReport(summary);

  it('lists the check and each violated rule, with its help link, in the failed test\'s section', () => {
    const section = md.slice(md.indexOf('#### ❌ A11y page'));
    expect(section).toContain('- accessibility "the page is accessible": 2 rules violated at or above serious (0 allowed; 1 below serious not counted)\n');
    expect(section).toContain('  - `button-name` (critical): Buttons must have &lt;b&gt;discernible&lt;/b&gt; text &amp; a name — `#icon-button` ([help](<https://dequeuniversity.com/rules/axe/4.14/button-name?application=axeAPI>))\n');
    expect(section).toContain('  - `color-contrast` (serious): ');
    // Outside code fences page text never becomes markup.
    expect(md.replace(/```text\n[\s\S]*?```/g, '')).not.toContain('<b>');
  });
});

describe('accessibility outcomes in the JUnit report', () => {
  const xml = renderJUnitReport(summary);
  const xsd = readFileSync(join(import.meta.dirname, 'junit.xsd'), 'utf8');

  it('stays valid against the Jenkins JUnit XSD, with the rules as properties and in system-out', async () => {
    const result = await validateXML({ xml: [{ fileName: 'junit.xml', contents: xml }], schema: [{ fileName: 'junit.xsd', contents: xsd }] });
    expect(result.errors.map((e) => e.rawMessage)).toEqual([]);
    const doc = (await parseJUnit(xml)) as TestSuites;
    const c = (doc.testsuite ?? []).flatMap((s) => s.testcase ?? []).find((x) => x.name === 'A11y page');
    expect(c?.failure?.[0]?.message).toBe(a11yPage.error_message);
    const props = [...xml.matchAll(/<property name="(svc\.accessibility[^"]*)" value="([^"]*)"\/>/g)].map((m) => [m[1], m[2]]);
    expect(props).toContainEqual(['svc.accessibility.1', 'the page is accessible: 2 rules violated at or above serious (0 allowed; 1 below serious not counted)']);
    expect(props).toContainEqual(['svc.accessibility.1.button-name', 'critical, 1 element(s): #icon-button — Buttons must have &lt;b&gt;discernible&lt;/b&gt; text &amp; a name']);
    expect(c?.['system-out']?.[0]).toContain('    color-contrast (serious): Elements must meet minimum color contrast ratio thresholds — #faint-0, #faint-1, #faint-2 (+9 more) — https://dequeuniversity.com/rules/axe/4.14/color-contrast?application=axeAPI');
  });
});
