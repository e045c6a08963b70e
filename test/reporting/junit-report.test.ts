import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, type TestCase, type TestSuite, type TestSuites } from 'junit2json';
import { describe, expect, it } from 'vitest';
import { validateXML } from 'xmllint-wasm';
import { renderJUnitReport } from '@svc/core/reporting/junit-report';
import { CONTROL_NAME, SCRIPT_NAME, UNICODE_NAME, healed, makeSummary, passedLogin } from './fixtures.ts';

/**
 * The JUnit report is read back by independent tools: junit2json (xml2js, the parser many
 * CI actions use) for the numbers, and libxml2's XSD validator (xmllint, compiled to
 * WebAssembly so `npm ci` is enough) against the Jenkins JUnit schema in junit.xsd.
 */
const xsd = readFileSync(join(import.meta.dirname, 'junit.xsd'), 'utf8');

async function validate(xml: string) {
  return validateXML({ xml: [{ fileName: 'junit.xml', contents: xml }], schema: [{ fileName: 'junit.xsd', contents: xsd }] });
}

async function read(xml: string): Promise<TestSuites> {
  const parsed = await parse(xml);
  if (!parsed || !('testsuite' in parsed)) throw new Error('no <testsuites> root');
  return parsed as TestSuites;
}

const sum = (suites: TestSuite[], f: (s: TestSuite) => number | undefined) => suites.reduce((n, s) => n + (f(s) ?? 0), 0);

describe('JUnit XML report', () => {
  const summary = makeSummary();
  const xml = renderJUnitReport(summary);

  it('is valid against the Jenkins JUnit XSD (libxml2)', async () => {
    const result = await validate(xml);
    expect(result.errors.map((e) => e.rawMessage)).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('the validator is real: it rejects a broken document', async () => {
    const broken = xml.replace(/<testcase classname="[^"]*" name="[^"]*"/, '<testcase classname="x"').replace('time="40.400"', 'time="forty"');
    const result = await validate(broken);
    expect(result.valid).toBe(false);
    expect(result.errors.map((e) => e.message).join('\n')).toMatch(/'name' is required|time/);
  });

  it('reads back with the same counts as the summary', async () => {
    const doc = await read(xml);
    const suites = doc.testsuite ?? [];
    const cases = suites.flatMap((s) => s.testcase ?? []);
    expect(doc.tests).toBe(summary.total);
    expect(doc.failures).toBe(summary.failed);
    expect(doc.errors).toBe(0);
    expect(cases).toHaveLength(summary.total);
    expect(sum(suites, (s) => s.tests)).toBe(summary.total);
    expect(sum(suites, (s) => s.failures)).toBe(summary.failed);
    expect(sum(suites, (s) => s.skipped)).toBe(summary.skipped);
    expect(cases.filter((c) => c.failure)).toHaveLength(summary.failed);
    expect(cases.filter((c) => c.skipped)).toHaveLength(summary.skipped);
    // junit2json leaves <testsuites skipped> out of its type; the attribute is there.
    expect((doc as TestSuites & { skipped?: number }).skipped).toBe(summary.skipped);
    expect(doc.time).toBe(40.4);
  });

  it('groups tests into suites by suite name, else by type', async () => {
    const doc = await read(xml);
    const names = (doc.testsuite ?? []).map((s) => [s.name, s.tests]);
    expect(names).toEqual([
      ['Checkout suite', 2],
      ['api', 2],
      ['ui', 3],
      ['db', 1],
    ]);
    const checkout = doc.testsuite?.[0];
    expect(checkout?.properties).toContainEqual({ name: 'svc.run_id', value: 'run_01JQ7Z3K8X' });
    expect(checkout?.testcase?.every((c) => c.classname === 'Checkout suite')).toBe(true);
  });

  it('writes a failure with the kind as type, the steps up to the failure and the stack', async () => {
    const doc = await read(xml);
    const c = findCase(doc, 'Checkout | buy `now`');
    expect(c.time).toBe(5.72);
    const failure = c.failure?.[0];
    expect(failure?.type).toBe('locator');
    expect(failure?.message).toBe('No element matches #buy-now (waited 5000 ms)\nLast URL: https://shop.example.test/cart');
    expect(failure?.inner).toContain('✓ 1. goto "/cart" (0.530 s)');
    expect(failure?.inner).toContain('✓ 2. click "#accept-cookies" [Accept cookies] (0.061 s)');
    expect(failure?.inner).toContain('✗ 3. click "#buy-now" (5.004 s) — locator: No element matches #buy-now');
    expect(failure?.inner).not.toContain('assert text "#total"');
    expect(failure?.inner).toContain('at PlaywrightSession.perform (driver.ts:120:11)');
    expect(c['system-out']?.[0]).toContain('○ 4. assert text "#total" equals "42.00"');
    expect(c['system-out']?.[0]).toContain('Trace: runs/r1/checkout-buy/trace.zip');
    expect(c['system-err']?.[0]).toContain('request failed: POST https://shop.example.test/api/cart?x=1&y=<2> — net::ERR_CONNECTION_REFUSED');
  });

  it('counts a healed test as passed, marked svc.status=healed with the heals', async () => {
    const doc = await read(xml);
    const c = findCase(doc, healed.name);
    expect(c.failure).toBeUndefined();
    expect(c.skipped).toBeUndefined();
    const props = (c as TestCase & { properties?: Array<{ name: string; value: string }> }).properties ?? rawProperties(xml, healed.name);
    expect(props).toContainEqual({ name: 'svc.status', value: 'healed' });
    expect(props).toContainEqual({ name: 'svc.healed.step.2', value: '#q → input[name="query"] (confidence 0.93)' });
    expect(c['system-out']?.[0]).toContain('step 2: #q → input[name="query"] (confidence 93%)');
  });

  it('writes a skipped test with its reason', async () => {
    const c = findCase(await read(xml), 'Orders table has rows');
    expect(c.skipped).toEqual([{ message: 'DATABASE_URL is not set for this project' }]);
  });

  it('escapes markup and strips characters XML 1.0 forbids', async () => {
    const doc = await read(xml);
    const names = (doc.testsuite ?? []).flatMap((s) => s.testcase ?? []).map((c) => c.name);
    expect(names).toContain(SCRIPT_NAME);
    expect(names).toContain(UNICODE_NAME);
    expect(names).toContain('bell escape[31m nul lone end');
    expect(names).not.toContain(CONTROL_NAME);
    // eslint-disable-next-line no-control-regex
    expect(xml).not.toMatch(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
    const timeout = findCase(doc, 'bell escape[31m nul lone end');
    expect(timeout.failure?.[0]).toMatchObject({ type: 'timeout', message: 'timed out after 30000 ms — ]]> and ' });
  });

  it('writes times in seconds with three decimals', () => {
    const times = [...xml.matchAll(/ time="([^"]*)"/g)].map((m) => m[1]);
    expect(times.length).toBeGreaterThan(8);
    for (const t of times) expect(t).toMatch(/^\d+\.\d{3}$/);
    expect(xml).toContain(`<testsuites name="Nightly &lt;staging&gt; &amp; &quot;prod&quot;" tests="8" failures="3" errors="0" skipped="1" time="40.400" timestamp="2025-03-14T09:26:53.000Z">`);
  });

  it('is valid for an all-passing run and for an empty run', async () => {
    for (const s of [makeSummary([passedLogin, healed]), makeSummary([])]) {
      const out = renderJUnitReport(s);
      expect((await validate(out)).valid).toBe(true);
      const doc = await read(out).catch(() => parse(out));
      expect((doc as TestSuites).tests).toBe(s.total);
    }
  });
});

function findCase(doc: TestSuites, name: string): TestCase {
  const c = (doc.testsuite ?? []).flatMap((s) => s.testcase ?? []).find((x) => x.name === name);
  if (!c) throw new Error(`no testcase ${name}`);
  return c;
}

/** Per-test <properties> (junit2json's types only describe suite-level ones). */
function rawProperties(xml: string, name: string): Array<{ name: string; value: string }> {
  const start = xml.indexOf(`name="${name}"`);
  const block = xml.slice(start, xml.indexOf('</testcase>', start));
  return [...block.matchAll(/<property name="([^"]*)" value="([^"]*)"\/>/g)].map((m) => ({ name: m[1], value: m[2].replace(/&quot;/g, '"') }));
}
