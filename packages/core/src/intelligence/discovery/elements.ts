import type { Fingerprint } from '../../contracts/fingerprint.ts';
import type { Locator } from '../../contracts/steps.ts';
import { replacementSelector, type SelectorStrategy } from '../../healing/selector.ts';
import { elementCategory, isInteractive } from './classify.ts';
import type { ElementInfo } from './types.ts';

/** How well each selector strategy survives redesigns (the healing engine's preference order). */
const STRATEGY_STABILITY: Record<SelectorStrategy, number> = { testId: 0.95, role: 0.85, label: 0.85, id: 0.8, text: 0.65, css: 0.45, xpath: 0.2 };

const q = (s: string) => JSON.stringify(s);

/** One Playwright selector string for a locator (DiscoveredElement.selector is a string). */
export function selectorString(locator: Locator): string {
  if (typeof locator === 'string') return locator;
  if ('test_id' in locator) return `[data-testid=${q(locator.test_id)}]`;
  if ('role' in locator) return `role=${locator.role}${locator.name !== undefined ? `[name=${q(locator.name)}${locator.exact ? 's' : 'i'}]` : ''}`;
  if ('label' in locator) return `internal:label=${q(locator.label)}${locator.exact ? 's' : 'i'}`;
  if ('placeholder' in locator) return `[placeholder=${q(locator.placeholder)}]`;
  if ('text' in locator) return `text=${q(locator.text)}`;
  if ('css' in locator) return locator.css;
  return `xpath=${locator.xpath}`;
}

export function stabilityScore(strategy: SelectorStrategy, unique: boolean): number {
  return round(STRATEGY_STABILITY[strategy] - (unique ? 0 : 0.25));
}

const round = (n: number) => Math.round(Math.max(0, Math.min(1, n)) * 100) / 100;

/** Importance of an element to testing: submit buttons and fields first, footer links last. */
export function elementImportance(e: Pick<ElementInfo, 'category' | 'label' | 'inputType' | 'tag'>, inForm: boolean): number {
  let score = { button: 0.7, input: 0.7, textarea: 0.6, select: 0.6, checkbox: 0.5, navigation: 0.5, link: 0.35 }[e.category] ?? 0.3;
  const label = (e.label ?? '').toLowerCase();
  if (inForm) score += 0.1;
  if (e.inputType === 'password' || e.inputType === 'submit') score += 0.2;
  if (/\b(sign in|log in|login|register|sign up|buy|checkout|pay|save|submit|create|add|send)\b/.test(label)) score += 0.2;
  return round(score);
}

/**
 * The interactive elements of a page with their best selector, by the healing engine's
 * selector preference (test id, role + name, label, id, text, CSS, XPath).
 */
export function elementsFromFingerprints(fps: readonly Fingerprint[], cap = 500): ElementInfo[] {
  const out: ElementInfo[] = [];
  for (const fp of fps) {
    if (out.length >= cap) break;
    if (!isInteractive(fp)) continue;
    const proposal = replacementSelector(fp, fps);
    if (!proposal) continue;
    const label = fp.accessibleName || fp.ariaLabel || fp.text || fp.placeholder || fp.name || null;
    out.push({
      locator: proposal.locator,
      selector: selectorString(proposal.locator),
      strategy: proposal.strategy,
      unique: proposal.unique,
      category: elementCategory(fp),
      label: label ? label.slice(0, 200) : null,
      tag: fp.tag ?? '',
      inputType: fp.type,
      href: fp.href,
    });
  }
  return out;
}
