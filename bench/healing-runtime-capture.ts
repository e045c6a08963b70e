/**
 * Builds the runtime calibration set: fingerprints captured by the product's own browser
 * driver (real Chromium, the runner's in-page fingerprinting), so the set has the evidence
 * runtime fingerprints carry and the Similo records lack — role, accessible name, labels,
 * test ids, form context, neighbour texts from the real DOM.
 *
 * For every base page (bench/healing-runtime-pages.ts) and seed: capture the page (v1),
 * apply a random redesign in the page (bench/healing-runtime-mutate.ts), capture it again
 * (v2). Each actionable v1 element that changed becomes a case whose answer is the same
 * DOM element in v2; an element the redesign removed becomes a "removed" case (no right
 * answer: any heal is wrong). The element keys used to pair them are stripped before
 * anything is written. Writes bench/healing-runtime-set.json.gz.
 *
 * Run: npm run bench:healing-capture [-- --variants N] (default 20 per page; the committed set used 20)
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Fingerprint } from '../packages/core/src/contracts/fingerprint.ts';
import { pageFingerprints } from '../packages/functions/src/execution/browser/fingerprint.ts';
import { createPlaywrightDriver } from '../packages/functions/src/execution/browser/playwright-driver.ts';
import { BASE_PAGES } from './healing-runtime-pages.ts';
import { keyFn, mutateFn } from './healing-runtime-mutate.ts';
import { RUNTIME_SET, type RuntimeSet } from './healing-runtime-set.ts';

const KEY = 'data-k';
/** Elements a test acts on or asserts on. */
const TARGET_TAGS = new Set(['a', 'button', 'input', 'select', 'textarea', 'summary', 'label', 'h1', 'h2', 'h3', 'legend', 'td', 'th', 'li', 'p', 'span', 'cite']);
/** A v1 element whose usual locator anchors all survived would not need healing. */
const changed = (a: Fingerprint, b: Fingerprint) =>
  a.id !== b.id || a.testId !== b.testId || a.text !== b.text || a.name !== b.name || (a.classes ?? []).join(' ') !== (b.classes ?? []).join(' ');

const keyOf = (fp: Fingerprint) => fp.attributes?.[KEY];
function strip(fp: Fingerprint): Fingerprint {
  if (!fp.attributes) return fp;
  const { [KEY]: _, ...rest } = fp.attributes;
  return { ...fp, attributes: rest };
}

const arg = process.argv.indexOf('--variants');
const variants = arg > 0 ? Number(process.argv[arg + 1]) : 20;
const set: RuntimeSet = { pages: [], cases: [] };
const driver = await createPlaywrightDriver();
try {
  const session = await driver.openSession({ trace: false, viewport: { width: 1280, height: 900 } });
  const page = session.page;
  for (const base of BASE_PAGES) {
    await page.setContent(base.html);
    await page.evaluate(keyFn);
    const v1 = (await pageFingerprints(page)).filter((fp) => TARGET_TAGS.has(fp.tag ?? '') && keyOf(fp) !== undefined);
    for (let v = 0; v < variants; v++) {
      const seed = 1000 * (BASE_PAGES.indexOf(base) + 1) + v;
      await page.setContent(base.html);
      await page.evaluate(keyFn);
      const { removed } = await page.evaluate(mutateFn, { seed, intensity: 0.6 + ((v * 7) % 10) / 10 });
      const v2 = await pageFingerprints(page);
      const where = new Map(v2.map((fp, i) => [keyOf(fp), i]));
      const pageId = `${base.id}/${v}`;
      set.pages.push({ id: pageId, candidates: v2.map(strip) });
      const gone = new Set(removed);
      for (const t of v1) {
        const k = keyOf(t)!;
        const answer = where.get(k);
        if (gone.has(k)) set.cases.push({ id: `${pageId}/${k}`, site: base.id, page: pageId, target: strip(t), answer: -1 });
        else if (answer !== undefined && changed(t, v2[answer])) set.cases.push({ id: `${pageId}/${k}`, site: base.id, page: pageId, target: strip(t), answer });
      }
    }
    process.stderr.write(`${base.id}: ${set.cases.filter((c) => c.site === base.id).length} cases\n`);
  }
  await session.close();
} finally {
  await driver.close();
}
const buf = gzipSync(JSON.stringify(set), { level: 9 });
await writeFile(RUNTIME_SET, buf);
const removedCases = set.cases.filter((c) => c.answer < 0).length;
console.log(`wrote ${join(RUNTIME_SET)}: ${set.pages.length} pages, ${set.cases.length} cases (${removedCases} removed), ${(buf.length / 1e6).toFixed(1)} MB`);
