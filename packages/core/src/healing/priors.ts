/**
 * Prior attribute weights: Similo's published weights (1.5 for the stable attributes tag,
 * id, name, visible text and neighbour text; 0.5 for the rest), extended to the attributes
 * the Similo records lack (test id, role, accessible name, ARIA label, alt, attributes).
 * Fitting starts from these and is regularised towards them; attributes the dev set never
 * has keep their prior.
 */
import type { FeatureName } from './features.ts';

export const PRIOR_WEIGHTS: Record<FeatureName, number> = {
  tag: 1.5,
  tagFamily: 0.5,
  id: 1.5,
  idFuzzy: 0.5,
  name: 1.5,
  nameFuzzy: 0.5,
  testId: 3,
  classes: 0.5,
  textExact: 1,
  text: 1.5,
  label: 1,
  accessibleName: 1.5,
  ariaLabel: 1.5,
  title: 0.5,
  placeholder: 1,
  alt: 0.5,
  value: 0.5,
  type: 1,
  role: 1,
  href: 0.5,
  xpath: 0.5,
  xpathTail: 0.5,
  idXpath: 0.5,
  idXpathTail: 0.5,
  idAnchor: 0.5,
  position: 0.5,
  size: 0.5,
  overlap: 0.5,
  shape: 0.5,
  isButton: 0.5,
  neighbors: 1.5,
  neighborTexts: 0.5,
  attributes: 1,
  tokens: 1,
  contextTokens: 0.5,
  groupTokens: 0.5,
  groupLabel: 0.5,
  groupTag: 0.3,
  groupHref: 0.3,
  hasText: 0.5,
  hasId: 0.3,
  hasHref: 0.3,
  hasClasses: 0.2,
};
