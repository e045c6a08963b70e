import type { AssertionResult, RunSummary, StepResult, TestExecutionResult } from '../execution/types.ts';
import type { VisualOutcome } from '../visual/baseline-store.ts';
import type { AccessibilityOutcome } from '../contracts/accessibility.ts';
import { quarantineOf } from '../execution/totals.ts';
import { STEP_ICON, accessibilitySummary, failingStep, violationTargets, healedSelectors, healPlace, stepHeals, percent, screenshotKeys, seconds, stripControl, testError, visualImages, visualSummary, retriesOf } from './format.ts';

/**
 * The JUnit XML report (`junit.xml`) in the dialect CI tools read (Jenkins, GitLab, GitHub
 * test-reporter actions, Azure DevOps, Buildkite): the Jenkins/Surefire schema, plus the
 * `skipped` and `timestamp` totals on <testsuites> and per-test <properties> that
 * Playwright's own JUnit reporter emits too.
 *
 * - one <testsuite> per suite: the result's `metadata.suite` (or `metadata.file`) when it
 *   is a string, else the test type (ui, api, db);
 * - a failed test has one <failure type="<failure kind>">; svc reports no <error>, because
 *   every failure is classified by kind (errors="0");
 * - a healed test passed and carries the property svc.status=healed;
 * - each visual comparison is a property svc.visual.<name> (its outcome) plus one per image
 *   (svc.visual.<name>.baseline|actual|diff = artifact key), the way screenshots are listed
 *   as svc.screenshot, and is repeated in <system-out>;
 * - each accessibility check is a property svc.accessibility.<n> (its summary) plus one per
 *   violated rule (svc.accessibility.<n>.<rule id> = impact, elements, help), and is
 *   repeated in <system-out> with each rule's help URL;
 * - a run that failed as a whole (an error, a limit) says why in the suite property
 *   svc.run_error (in an empty suite named "run" when no test ran); it is no <error> of a
 *   test, and its tests not run are <skipped> with the reason;
 * - times are seconds with three decimals; characters XML 1.0 forbids are removed.
 */

export interface JUnitReportOptions {
  /** Written as the hostname attribute of each <testsuite> (omitted when not given). */
  hostname?: string;
}

export function renderJUnitReport(summary: RunSummary, options: JUnitReportOptions = {}): string {
  const suites = groupBySuite(summary.results);
  // A run that failed before any test ran has no suite of tests: an empty one carries the run's properties, its error among them.
  if (summary.error !== undefined && suites.size === 0) suites.set('run', []);
  const all = summary.results;
  const out: string[] = ['<?xml version="1.0" encoding="UTF-8"?>'];
  out.push(
    `<testsuites${attrs({
      name: summary.name,
      tests: all.length,
      failures: count(all, 'failed'),
      errors: 0,
      skipped: count(all, 'skipped'),
      time: seconds(summary.duration_ms),
      timestamp: summary.started_at,
    })}>`,
  );
  for (const [name, results] of suites) {
    out.push(
      `  <testsuite${attrs({
        name,
        tests: results.length,
        failures: count(results, 'failed'),
        errors: 0,
        skipped: count(results, 'skipped'),
        time: seconds(results.reduce((sum, r) => sum + r.duration_ms, 0)),
        timestamp: results[0]?.started_at ?? summary.started_at,
        ...(options.hostname ? { hostname: options.hostname } : {}),
      })}>`,
    );
    out.push('    <properties>');
    const suiteProps: Array<[string, string]> = [['svc.run_id', summary.run_id], ['svc.run_name', summary.name], ['svc.workers', String(summary.workers)]];
    if (summary.unfinished) suiteProps.push(['svc.unfinished', summary.unfinished]);
    if (summary.error !== undefined) suiteProps.push(['svc.run_error', summary.error]);
    if (summary.base_url) suiteProps.push(['svc.base_url', summary.base_url]);
    for (const [k, v] of suiteProps) out.push(`      <property${attrs({ name: k, value: v })}/>`);
    out.push('    </properties>');
    for (const r of results) out.push(...testcase(r, name));
    out.push('  </testsuite>');
  }
  out.push('</testsuites>');
  return `${out.join('\n')}\n`;
}

function testcase(r: TestExecutionResult, classname: string): string[] {
  const out: string[] = [];
  out.push(`    <testcase${attrs({ classname, name: r.name, time: seconds(r.duration_ms) })}>`);

  const props: Array<[string, string]> = [['svc.test_id', r.test_id], ['svc.type', r.type], ['svc.status', r.status]];
  for (const h of healedSelectors(r)) props.push([h.assertion !== undefined ? `svc.healed.assertion.${h.assertion + 1}` : `svc.healed.step.${h.step + 1}${h.field === undefined ? '' : `.${h.field}`}`, `${h.original} → ${h.healed} (confidence ${h.confidence})`]);
  if (retriesOf(r)) props.push(['svc.flaky', `passed after ${retriesOf(r)} failed attempt${retriesOf(r) === 1 ? '' : 's'}`]);
  for (const key of screenshotKeys(r)) props.push(['svc.screenshot', key]);
  for (const v of r.visual ?? []) props.push(...visualProperties(v));
  (r.accessibility ?? []).forEach((o, i) => props.push(...accessibilityProperties(o, i + 1)));
  if (r.trace) props.push(['svc.trace', r.trace]);
  // Kept a failure (what happened), marked so a CI dashboard can tell it does not fail the run.
  const quarantine = quarantineOf(r);
  if (quarantine !== undefined) props.push(['svc.quarantined', quarantine]);
  out.push('      <properties>');
  for (const [k, v] of props) out.push(`        <property${attrs({ name: k, value: v })}/>`);
  out.push('      </properties>');

  const error = testError(r);
  if (r.status === 'failed') {
    const step = failingStep(r);
    const upTo = step ? r.steps.filter((s) => s.index <= step.index) : r.steps;
    const body = [...upTo.map(stepLine)];
    if (error?.stack) body.push('', error.stack);
    out.push(`      <failure${attrs({ message: error?.message || 'failed', type: error?.kind ?? 'failure' })}>${text(body.join('\n'))}</failure>`);
  } else if (r.status === 'skipped') {
    out.push(error?.message ? `      <skipped${attrs({ message: error.message })}/>` : '      <skipped/>');
  }

  const log: string[] = r.steps.map(stepLine);
  if (r.assertion_results?.length) log.push('', 'Assertions:', ...r.assertion_results.map(assertionLine));
  const heals = healedSelectors(r);
  if (heals.length > 0) {
    log.push('', 'Healed selectors:');
    for (const h of heals) log.push(`  ${healPlace(h)}: ${h.original} → ${h.healed} (confidence ${percent(h.confidence)})`);
  }
  const shots = screenshotKeys(r);
  if (shots.length > 0) log.push('', 'Screenshots:', ...shots.map((k) => `  ${k}`));
  if (r.visual && r.visual.length > 0) log.push('', 'Visual comparisons:', ...r.visual.flatMap(visualLog));
  if (r.accessibility && r.accessibility.length > 0) log.push('', 'Accessibility:', ...r.accessibility.flatMap(accessibilityLog));
  if (r.trace) log.push('', `Trace: ${r.trace} (open with: npx playwright show-trace <path>)`);
  if (log.length > 0) out.push(`      <system-out>${text(log.join('\n'))}</system-out>`);

  const problems = [...r.console_errors.map((e) => `console: ${e}`), ...r.failed_requests.map((f) => `request failed: ${f.method} ${f.url} — ${f.failure}`)];
  if (problems.length > 0) out.push(`      <system-err>${text(problems.join('\n'))}</system-err>`);
  out.push('    </testcase>');
  return out;
}

function accessibilityProperties(o: AccessibilityOutcome, n: number): Array<[string, string]> {
  return [[`svc.accessibility.${n}`, `${o.name}: ${accessibilitySummary(o)}`], ...o.violations.map((v): [string, string] => [`svc.accessibility.${n}.${v.id}`, `${v.impact ?? 'no impact'}, ${v.node_count} element(s): ${violationTargets(v)} — ${v.help}`])];
}

function accessibilityLog(o: AccessibilityOutcome): string[] {
  return [`  "${o.name}"${o.selector ? ` in ${o.selector}` : ''}: ${accessibilitySummary(o)}`, ...o.violations.map((v) => `    ${v.id} (${v.impact ?? 'no impact'}): ${v.help} — ${violationTargets(v)} — ${v.help_url}`)];
}

function visualProperties(v: VisualOutcome): Array<[string, string]> {
  return [[`svc.visual.${v.name}`, visualSummary(v)], ...visualImages(v).map((img): [string, string] => [`svc.visual.${v.name}.${img.role}`, img.key])];
}

function visualLog(v: VisualOutcome): string[] {
  return [`  "${v.name}": ${visualSummary(v)}`, ...visualImages(v).map((img) => `    ${img.caption}: ${img.key}`)];
}

function stepLine(s: StepResult): string {
  return checkLine(s, stepHeals(s).map((h) => ` (healed${h.field === undefined ? '' : ` ${h.field}`}: ${h.original} → ${h.healed})`).join(''));
}

function assertionLine(a: AssertionResult): string {
  return checkLine(a, '');
}

/** A step or an assertion as one line: icon, number, description, name, duration, `notes`, error. */
function checkLine(c: Pick<StepResult, 'status' | 'index' | 'description' | 'name' | 'duration_ms' | 'error'>, notes: string): string {
  const name = c.name ? ` [${c.name}]` : '';
  const error = c.error ? ` — ${c.error.kind}: ${c.error.message}` : '';
  return `${STEP_ICON[c.status]} ${c.index + 1}. ${c.description}${name} (${seconds(c.duration_ms)} s)${notes}${error}`;
}

function groupBySuite(results: TestExecutionResult[]): Map<string, TestExecutionResult[]> {
  const groups = new Map<string, TestExecutionResult[]>();
  for (const r of results) {
    const meta = r.metadata ?? {};
    const named = [meta.suite, meta.file].find((v): v is string => typeof v === 'string' && v.trim() !== '');
    const key = named ?? r.type;
    const list = groups.get(key);
    if (list) list.push(r);
    else groups.set(key, [r]);
  }
  return groups;
}

const count = (rs: TestExecutionResult[], status: TestExecutionResult['status']) => rs.filter((r) => r.status === status).length;

// ---------------------------------------------------------------- XML escaping

/** Character data: forbidden characters removed, markup characters escaped. */
function text(value: string): string {
  return stripControl(value).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * Attribute values, double-quoted. Tab, newline and carriage return are written as
 * character references so attribute-value normalization does not turn them into spaces.
 */
function attr(value: string): string {
  return text(value).replace(/"/g, '&quot;').replace(/\t/g, '&#9;').replace(/\n/g, '&#10;').replace(/\r/g, '&#13;');
}

function attrs(values: Record<string, string | number>): string {
  return Object.entries(values)
    .map(([k, v]) => ` ${k}="${attr(String(v))}"`)
    .join('');
}
