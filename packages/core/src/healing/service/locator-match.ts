import type { Fingerprint } from '../../contracts/fingerprint.ts';
import type { Locator } from '../../contracts/steps.ts';
import { normText } from '../text.ts';

/**
 * How many of the page's (visible) fingerprints a locator would match, judged from their
 * recorded attributes; undefined when that cannot be told from a fingerprint (arbitrary
 * CSS or Playwright selector strings), in which case the browser's own uniqueness check
 * on re-run decides. Used to refuse a remembered fix whose element is gone or ambiguous
 * before spending a re-run on it.
 */
export function locatorMatchCount(locator: Locator, page: readonly Fingerprint[]): number | undefined {
  const test = predicate(locator);
  if (!test) return undefined;
  let n = 0;
  for (const fp of page) if (fp.visible !== false && test(fp)) n++;
  return n;
}

const same = (a: string | undefined, b: string | undefined, exact = true) => {
  if (a === undefined || b === undefined) return false;
  const x = normText(a);
  const y = normText(b);
  return exact ? x === y : x.includes(y);
};
const SIMPLE_ID = /^#([\w-]+)$/;

function predicate(locator: Locator): ((fp: Fingerprint) => boolean) | undefined {
  if (typeof locator === 'string') {
    const id = SIMPLE_ID.exec(locator.trim());
    if (id) return (fp) => fp.id === id[1];
    const testId = /^(?:data-testid=|test_id=)["']?([^"']+)["']?$/.exec(locator.trim());
    if (testId) return (fp) => fp.testId === testId[1];
    return undefined;
  }
  if ('test_id' in locator) return (fp) => fp.testId === locator.test_id;
  if ('role' in locator) {
    const name = locator.name;
    return (fp) => fp.role === locator.role && (name === undefined || same(fp.accessibleName, name, locator.exact ?? false));
  }
  if ('label' in locator) return (fp) => same(fp.ariaLabel ?? fp.accessibleName, locator.label, locator.exact ?? false);
  if ('placeholder' in locator) return (fp) => same(fp.placeholder, locator.placeholder, locator.exact ?? false);
  // A non-exact text locator also matches every ancestor whose text contains it; the browser decides.
  if ('text' in locator) return locator.exact ? (fp) => same(fp.text, locator.text) : undefined;
  if ('css' in locator) {
    const id = SIMPLE_ID.exec(locator.css.trim().replace(/\\(.)/g, '$1'));
    return id ? (fp) => fp.id === id[1] : undefined;
  }
  if ('xpath' in locator) return (fp) => fp.xpath === locator.xpath || fp.idXpath === locator.xpath;
  return undefined;
}
