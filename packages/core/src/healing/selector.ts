/**
 * Proposes a new locator for a healed element, preferring what survives redesigns:
 * test id, then role + accessible name, label, id, stable text, and only then CSS or
 * XPath. Each proposal reports how many of the page's fingerprints it would match; the
 * runtime still checks uniqueness for real on the page before using it.
 */
import type { Fingerprint } from '../contracts/fingerprint.ts';
import type { Locator } from '../contracts/steps.ts';
import { looksGenerated, normText } from './text.ts';
import { unknownRoleMessage } from '../contracts/aria-roles.ts';

export type SelectorStrategy = 'testId' | 'role' | 'label' | 'id' | 'text' | 'css' | 'xpath';

export interface SelectorProposal {
  locator: Locator;
  strategy: SelectorStrategy;
  /** How many of the page's fingerprints the locator would match (by their recorded attributes). */
  matches: number;
  /** True when exactly one page fingerprint matches. */
  unique: boolean;
}

export interface ReplacementSelector extends SelectorProposal {
  /** Every applicable proposal, best first (the chosen one included). */
  alternatives: SelectorProposal[];
}

const FIELD_TAGS = new Set(['input', 'textarea', 'select']);
const MAX_TEXT_SELECTOR = 80;

interface Rule {
  strategy: SelectorStrategy;
  /** The locator for `fp`, or undefined when this strategy does not apply. */
  locator(fp: Fingerprint): Locator | undefined;
  /** Whether another fingerprint would be matched by the locator built from `fp`. */
  same(fp: Fingerprint, other: Fingerprint): boolean;
}

const norm = (s: string | undefined) => normText(s);
const labelOf = (fp: Fingerprint) => fp.ariaLabel ?? fp.accessibleName;
const cssEscape = (s: string) => s.replace(/([^\w-])/g, '\\$1').replace(/^(\d)/, '\\3$1 ');
const stableClasses = (fp: Fingerprint) => (fp.classes ?? []).filter((c) => !looksGenerated(c) && /^[\w-]+$/.test(c)).slice(0, 3);
const goodText = (t: string | undefined): t is string => !!t && t.length <= MAX_TEXT_SELECTOR && /\p{L}/u.test(t) && !/\d{3,}/.test(t);

const RULES: Rule[] = [
  {
    strategy: 'testId',
    locator: (fp) => (fp.testId ? { test_id: fp.testId } : undefined),
    same: (fp, o) => o.testId === fp.testId,
  },
  {
    strategy: 'role',
    // A role attribute Playwright does not know (role="custom-widget") never matches a role locator.
    locator: (fp) => (fp.role && fp.accessibleName && fp.role !== 'generic' && fp.role !== 'presentation' && !unknownRoleMessage(fp.role) ? { role: fp.role, name: fp.accessibleName, exact: true } : undefined),
    same: (fp, o) => o.role === fp.role && norm(o.accessibleName) === norm(fp.accessibleName),
  },
  {
    strategy: 'label',
    locator: (fp) => {
      const label = labelOf(fp);
      return fp.tag && FIELD_TAGS.has(fp.tag) && label ? { label, exact: true } : undefined;
    },
    same: (fp, o) => !!o.tag && FIELD_TAGS.has(o.tag) && norm(labelOf(o)) === norm(labelOf(fp)),
  },
  {
    strategy: 'id',
    locator: (fp) => (fp.id && !looksGenerated(fp.id) ? { css: `#${cssEscape(fp.id)}` } : undefined),
    same: (fp, o) => o.id === fp.id,
  },
  {
    strategy: 'text',
    locator: (fp) => (goodText(fp.text) ? { text: fp.text, exact: true } : undefined),
    same: (fp, o) => norm(o.text) === norm(fp.text),
  },
  {
    strategy: 'css',
    locator: (fp) => {
      if (!fp.tag || !/^[a-z][\w-]*$/.test(fp.tag)) return undefined;
      const classes = stableClasses(fp);
      const name = fp.name && !/["\\\n]/.test(fp.name) ? `[name="${fp.name}"]` : '';
      if (!classes.length && !name) return undefined;
      return { css: `${fp.tag}${classes.map((c) => `.${c}`).join('')}${name}` };
    },
    same: (fp, o) => o.tag === fp.tag && stableClasses(fp).every((c) => o.classes?.includes(c)) && (!fp.name || o.name === fp.name),
  },
  {
    strategy: 'xpath',
    locator: (fp) => (fp.idXpath ? { xpath: fp.idXpath } : fp.xpath ? { xpath: fp.xpath } : undefined),
    same: (fp, o) => (fp.idXpath ? o.idXpath === fp.idXpath : o.xpath === fp.xpath),
  },
];

/**
 * The best locator for `fingerprint` and whether it is unique among `pageFingerprints`
 * (which normally include the element itself). Returns undefined when the fingerprint
 * offers nothing to build a locator from.
 */
export function replacementSelector(fingerprint: Fingerprint, pageFingerprints: readonly Fingerprint[]): ReplacementSelector | undefined {
  const alternatives: SelectorProposal[] = [];
  for (const rule of RULES) {
    const locator = rule.locator(fingerprint);
    if (!locator) continue;
    let matches = 0;
    for (const other of pageFingerprints) if (rule.same(fingerprint, other)) matches++;
    alternatives.push({ locator, strategy: rule.strategy, matches, unique: matches === 1 });
  }
  if (!alternatives.length) return undefined;
  const chosen = alternatives.find((a) => a.unique) ?? alternatives[alternatives.length - 1];
  return { ...chosen, alternatives };
}
