import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import chromium from '@sparticuz/chromium';
import { parse as parseJUnit, type TestSuites } from 'junit2json';
import { parse } from 'parse5';
import * as pw from 'playwright-core';
import { PNG as Png } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateXML } from 'xmllint-wasm';
import type { TestExecutionResult } from '@svc/core/execution/types';
import { renderHtmlReport } from '@svc/core/reporting/html-report';
import { embeddedArtifactKeys, renderReports } from '@svc/core/reporting/index';
import { JsonReport, buildJsonReport, jsonReportSchema, renderJsonReport } from '@svc/core/reporting/json-report';
import { renderJUnitReport } from '@svc/core/reporting/junit-report';
import { renderMarkdownReport } from '@svc/core/reporting/markdown-report';
import { screenshotKeys, visualSummary } from '@svc/core/reporting/format';
import type { VisualOutcome } from '@svc/core/visual/baseline-store';
import { failedAtLocator, healed, makeSummary, passedLogin } from './fixtures.ts';
import { Ajv2020, attr, byClass, byTag, elements, textOf, type Element } from './html-tree.ts';

/**
 * Visual outcomes in every report: a failed test whose screenshot differs (baseline, actual
 * and diff images), a passed test that wrote baselines, and one whose images are not
 * available to the report. Images are real PNGs, checked byte for byte after embedding.
 */

/** A real PNG: a solid image, optionally with a red square in the middle. */
function png(width: number, height: number, rgb: [number, number, number], redSquare = false): Uint8Array {
  const image = new Png({ width, height });
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const red = redSquare && x >= width / 4 && x < (3 * width) / 4 && y >= height / 4 && y < (3 * height) / 4;
      image.data.set(red ? [255, 0, 0, 255] : [...rgb, 255], (y * width + x) * 4);
    }
  }
  return new Uint8Array(Png.sync.write(image));
}

const BASELINE = png(8, 6, [240, 240, 240]);
const ACTUAL = png(8, 6, [240, 240, 240], true);
const DIFF = png(8, 6, [250, 250, 250], true);
const NEW_BASELINE = png(8, 6, [20, 90, 200]);
const HOSTILE = '<img src=x onerror=alert(1)> "hero" & `more`';

const key = (test: string, file: string) => `runs/r1/${test}/${file}`;
const hero: VisualOutcome = {
  name: HOSTILE,
  status: 'differs',
  diff_pixels: 1234,
  diff_ratio: 0.0042,
  actual: key('home', 'visual-hero-actual.png'),
  baseline: key('home', 'visual-hero-baseline.png'),
  diff: key('home', 'visual-hero-diff.png'),
  baseline_hash: 'a'.repeat(64),
  message: 'visual "hero": the screenshot differs from its baseline: 1234 pixels (0.42%)',
};
const header: VisualOutcome = { name: 'header', status: 'matched', diff_pixels: 0, diff_ratio: 0, baseline_hash: 'b'.repeat(64) };

const home: TestExecutionResult = {
  ...failedAtLocator,
  test_id: 'home',
  name: 'Home page looks right',
  failure_kind: 'assertion',
  failed_step: 1,
  error_message: hero.message,
  stack_trace: undefined,
  // The actual screenshot is listed among the screenshots too: it must not show twice.
  screenshots: [key('home', 'final.png'), hero.actual as string],
  steps: [
    { index: 0, type: 'goto', description: 'goto "/"', status: 'passed', duration_ms: 200 },
    { index: 1, type: 'assert', description: 'assert visual "hero"', status: 'failed', duration_ms: 900, error: { kind: 'assertion', message: hero.message as string } },
  ],
  visual: [header, hero],
};

const footer: VisualOutcome = { name: 'footer', status: 'created', actual: key('landing', 'visual-footer-actual.png'), baseline_hash: 'c'.repeat(64), message: 'no baseline yet: this screenshot is now the baseline' };
const nav: VisualOutcome = { name: 'nav', status: 'updated', diff_pixels: 3, diff_ratio: 0.00001, actual: key('landing', 'visual-nav-actual.png'), baseline_hash: 'd'.repeat(64) };
const landing: TestExecutionResult = { ...passedLogin, test_id: 'landing', name: 'Landing page', screenshots: [], steps: [], visual: [footer, nav] };

/** Images of this test are not available to the report (e.g. the artifact store is elsewhere). */
const gone: VisualOutcome = { ...hero, name: 'gone', actual: key('orphan', 'a.png'), baseline: key('orphan', 'b.png'), diff: undefined, diff_pixels: 48, diff_ratio: 1 };
const orphan: TestExecutionResult = { ...home, test_id: 'orphan', name: 'Orphan', screenshots: [], error_message: 'size differs', visual: [gone] };

const artifacts = new Map<string, Uint8Array>([
  [hero.actual as string, ACTUAL],
  [hero.baseline as string, BASELINE],
  [hero.diff as string, DIFF],
  [footer.actual as string, NEW_BASELINE],
  [nav.actual as string, NEW_BASELINE],
]);
const embed = (k: string) => artifacts.get(k);
const summary = makeSummary([home, landing, orphan, healed]);

const dataUri = (bytes: Uint8Array) => `data:image/png;base64,${Buffer.from(bytes).toString('base64')}`;

describe('visual outcomes in the HTML report', () => {
  const html = renderHtmlReport(summary, { embed });
  const all = elements(parse(html));
  const cards = byClass(all, 'card');
  const items = (card: Element) => byClass(elements(card), 'visual');
  const figures = (item: Element) => byTag(elements(item), 'figure').map((f) => ({ caption: textOf(byTag(elements(f), 'figcaption')[0]), src: attr(byTag(elements(f), 'img')[0] ?? f, 'src'), missing: byClass([f], 'missing').length > 0 }));

  it('lists each outcome with its status and how much it differed, under "Visual comparisons"', () => {
    const body = elements(cards[0]);
    expect(byTag(body, 'h3').map(textOf)).toContain('Visual comparisons');
    const heads = items(cards[0]).map((li) => textOf(byClass(elements(li), 'visual-head')[0]));
    expect(heads).toEqual(['header matched', `${HOSTILE} differs 1,234 pixels (0.42 %)`]);
    expect(items(cards[0]).map((li) => attr(li, 'data-status'))).toEqual(['matched', 'differs']);
  });

  it('shows baseline, actual and difference side by side for an outcome that differs, embedded as PNG data URIs', () => {
    const differs = items(cards[0])[1];
    expect(byClass(elements(differs), 'compare')).toHaveLength(1);
    expect(figures(differs)).toEqual([
      { caption: `Baseline · ${hero.baseline}`, src: dataUri(BASELINE), missing: false },
      { caption: `Actual · ${hero.actual}`, src: dataUri(ACTUAL), missing: false },
      { caption: `Difference · ${hero.diff}`, src: dataUri(DIFF), missing: false },
    ]);
    // The matched outcome has nothing to show.
    expect(figures(items(cards[0])[0])).toEqual([]);
  });

  it('captions the screenshot of a created or updated outcome "New baseline"', () => {
    const [created, updated] = items(cards[1]);
    expect(textOf(created)).toContain('new baseline');
    expect(figures(created)).toEqual([{ caption: `New baseline · ${footer.actual}`, src: dataUri(NEW_BASELINE), missing: false }]);
    expect(textOf(updated)).toContain('nav baseline updated 3 pixels (< 0.01 %)');
    expect(figures(updated)[0].caption).toBe(`New baseline · ${nav.actual}`);
    // Its message explains what happened; a failing outcome's message is the error shown above it.
    expect(textOf(created)).toContain('this screenshot is now the baseline');
    expect(byClass(elements(items(cards[0])[1]), 'visual-message')).toEqual([]);
  });

  it('notes images it cannot embed instead of breaking, and a diff that was never made', () => {
    const item = items(cards[2])[0];
    expect(figures(item).map((f) => [f.caption.split(' · ')[0], f.missing])).toEqual([
      ['Baseline', true],
      ['Actual', true],
      ['Difference', true],
    ]);
    expect(textOf(item)).toContain('Screenshot not embedded (not available to the report).');
    expect(textOf(item)).toContain('No difference image');
    // An embed that throws is the same as one that has nothing.
    const out = renderHtmlReport(summary, {
      embed: () => {
        throw new Error('store down');
      },
    });
    expect(out).not.toContain('data:image');
  });

  it('escapes outcome names and messages, and embeds nothing but data: images', () => {
    expect(byTag(all, 'script')).toEqual([]);
    expect(all.filter((e) => e.tagName === 'img' && attr(e, 'src') === 'x')).toEqual([]);
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt; &quot;hero&quot; &amp; `more`');
    for (const img of byTag(all, 'img')) expect(attr(img, 'src')).toMatch(/^data:image\/png;base64,[A-Za-z0-9+/]+=*$/);
  });

  it('does not list a visual image again under Screenshots', () => {
    const shots = byClass(elements(cards[0]), 'shots').filter((d) => byClass([d], 'compare').length === 0);
    expect(shots).toHaveLength(1);
    expect(textOf(shots[0])).toContain(key('home', 'final.png'));
    expect(textOf(shots[0])).not.toContain(hero.actual);
    expect(html.split(`Actual · <code>${hero.actual}</code>`)).toHaveLength(2);
    expect(screenshotKeys(home)).toEqual([key('home', 'final.png')]);
  });

  it('names every artifact the report embeds, so a caller can load them first', () => {
    expect(embeddedArtifactKeys(summary)).toEqual([key('home', 'final.png'), hero.baseline, hero.actual, hero.diff, footer.actual, nav.actual, gone.baseline, gone.actual]);
  });
});

describe('visual comparisons in Chromium', () => {
  let browser: pw.Browser;
  beforeAll(async () => {
    browser = await pw.chromium.launch({ executablePath: await chromium.executablePath(), args: chromium.args, headless: true });
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('decodes the three images and lays them out side by side', async () => {
    const page = await browser.newPage();
    await page.setContent(renderHtmlReport(summary, { embed }));
    const row = page.locator('details.card').first().locator('.visual[data-status="differs"] .compare figure');
    expect(await row.count()).toBe(3);
    const boxes = await Promise.all([0, 1, 2].map(async (i) => (await row.nth(i).boundingBox()) as { x: number; y: number }));
    expect(new Set(boxes.map((b) => Math.round(b.y))).size).toBe(1);
    expect(boxes[0].x).toBeLessThan(boxes[1].x);
    expect(boxes[1].x).toBeLessThan(boxes[2].x);
    expect(await row.locator('img').evaluateAll((imgs) => imgs.map((i) => (i as HTMLImageElement).naturalWidth))).toEqual([8, 8, 8]);
    await page.close();
  });
});

describe('visual outcomes in the JSON report', () => {
  const report = JSON.parse(renderJsonReport(summary));

  it('validates against its zod schema and its published JSON Schema', () => {
    expect(() => JsonReport.parse(report)).not.toThrow();
    const validate = new Ajv2020({ strict: false }).compile(jsonReportSchema());
    expect(validate(report), JSON.stringify(validate.errors)).toBe(true);
    // The strict schema still rejects what it does not know.
    const odd = structuredClone(report);
    odd.tests[0].visual[0].surprise = 1;
    expect(validate(odd)).toBe(false);
  });

  it('carries each test’s outcomes as recorded, and leaves visual out of tests without any', () => {
    expect(report.tests[0].visual).toEqual([header, hero]);
    expect(report.tests[1].visual).toEqual([footer, nav]);
    expect('visual' in report.tests[3]).toBe(false);
    expect(report.tests[0].screenshots).toEqual([key('home', 'final.png')]);
    // The object and its serialization agree (no undefined keys left in the object).
    expect(buildJsonReport(summary).tests[2].visual).toEqual(report.tests[2].visual);
  });

  it('documents visual as an optional property', () => {
    const schema = jsonReportSchema() as { properties: { tests: { items: { required: string[]; properties: Record<string, unknown> } } } };
    expect(schema.properties.tests.items.properties.visual).toBeDefined();
    expect(schema.properties.tests.items.required).not.toContain('visual');
  });
});

describe('visual outcomes in the Markdown report', () => {
  const md = renderMarkdownReport(summary);

  it('lists every outcome of a failed test in its section', () => {
    const section = md.slice(md.indexOf('#### ❌ Home page'), md.indexOf('#### ❌ Orphan'));
    expect(section).toContain('- visual "header": matched\n');
    expect(section).toContain('- visual "&lt;img src=x onerror=alert(1)&gt; "hero" &amp; \\`more\\`": differs — 1,234 pixels (0.42 %)\n');
    expect(md).not.toContain('<img');
  });

  it('lists the baselines written by tests that did not fail, to review', () => {
    expect(md).toContain(['### 🖼️ Visual baselines written (2)', '', '- Landing page', '  - visual "footer": new baseline', '  - visual "nav": baseline updated — 3 pixels (< 0.01 %)'].join('\n'));
    expect(renderMarkdownReport(makeSummary([passedLogin]))).not.toContain('Visual baselines');
  });
});

describe('visual outcomes in the JUnit report', () => {
  const xml = renderJUnitReport(summary);
  const xsd = readFileSync(join(import.meta.dirname, 'junit.xsd'), 'utf8');

  it('stays valid against the Jenkins JUnit XSD and reads back', async () => {
    const result = await validateXML({ xml: [{ fileName: 'junit.xml', contents: xml }], schema: [{ fileName: 'junit.xsd', contents: xsd }] });
    expect(result.errors.map((e) => e.rawMessage)).toEqual([]);
    const doc = (await parseJUnit(xml)) as TestSuites;
    expect(doc.tests).toBe(4);
    expect(doc.failures).toBe(2);
  });

  it('lists the images as properties and in system-out, the way screenshots are', async () => {
    const doc = (await parseJUnit(xml)) as TestSuites;
    const c = (doc.testsuite ?? []).flatMap((s) => s.testcase ?? []).find((x) => x.name === home.name);
    expect(c?.failure?.[0]?.message).toBe(hero.message);
    const out = c?.['system-out']?.[0] ?? '';
    expect(out).toContain(['Visual comparisons:', '  "header": matched', `  "${HOSTILE}": differs — 1,234 pixels (0.42 %)`, `    Baseline: ${hero.baseline}`, `    Actual: ${hero.actual}`, `    Difference: ${hero.diff}`].join('\n'));
    expect(out).toContain(`Screenshots:\n  ${key('home', 'final.png')}\n`);
    const props = [...xml.matchAll(/<property name="(svc\.(?:visual|screenshot)[^"]*)" value="([^"]*)"\/>/g)].map((m) => [m[1], m[2]]);
    expect(props).toContainEqual(['svc.visual.header', 'matched']);
    expect(props).toContainEqual(['svc.visual.&lt;img src=x onerror=alert(1)&gt; &quot;hero&quot; &amp; `more`.diff', hero.diff]);
    expect(props).toContainEqual(['svc.visual.footer.actual', footer.actual]);
    expect(props.filter(([, v]) => v === hero.actual)).toHaveLength(1);
  });
});

describe('visual summary line', () => {
  it('reads the same in every report', () => {
    expect(visualSummary({ name: 'x', status: 'differs', diff_pixels: 1_234_567, diff_ratio: 0.5 })).toBe('differs — 1,234,567 pixels (50.00 %)');
    expect(visualSummary({ name: 'x', status: 'differs', diff_pixels: 1 })).toBe('differs — 1 pixel');
    expect(visualSummary({ name: 'x', status: 'missing' })).toBe('no baseline');
    expect(visualSummary({ name: 'x', status: 'matched', diff_pixels: 0, diff_ratio: 0 })).toBe('matched');
    expect(visualSummary({ name: 'x', status: 'created', diff_ratio: Number.NaN })).toBe('new baseline');
  });

  it('renders through renderReports like the rest', () => {
    const [htmlReport] = renderReports(summary, ['html'], { embed });
    expect(htmlReport.body).toContain(dataUri(DIFF));
  });
});
