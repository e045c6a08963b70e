import { z } from 'zod';

/**
 * An element's fingerprint: what the runner records on every successful locate and what
 * the healing engine ranks candidates by. Every field is optional and unknown fields are
 * dropped, so fingerprints from other tools (and older versions) still parse.
 * Field-by-field documentation: docs/healing.md.
 */
export const Box = z.object({
  x: z.number().describe('Left edge in CSS pixels, page coordinates'),
  y: z.number().describe('Top edge in CSS pixels, page coordinates'),
  width: z.number().describe('Width in CSS pixels'),
  height: z.number().describe('Height in CSS pixels'),
});

export const Fingerprint = z.object({
  tag: z.string().optional().describe('Lower-case tag name, e.g. button'),
  id: z.string().optional().describe('id attribute'),
  name: z.string().optional().describe('name attribute'),
  classes: z.array(z.string()).optional().describe('class names'),
  text: z.string().optional().describe('Visible text, whitespace collapsed, at most 500 characters'),
  role: z.string().optional().describe('ARIA role (explicit or implicit)'),
  accessibleName: z.string().optional().describe('Accessible name'),
  testId: z.string().optional().describe('data-testid / data-test / data-cy / data-qa value'),
  href: z.string().optional().describe('href attribute'),
  alt: z.string().optional().describe('alt attribute'),
  placeholder: z.string().optional().describe('placeholder attribute'),
  type: z.string().optional().describe('type attribute'),
  title: z.string().optional().describe('title attribute'),
  value: z.string().optional().describe('value attribute / current value of a form field'),
  ariaLabel: z.string().optional().describe('aria-label attribute'),
  attributes: z.record(z.string(), z.string()).optional().describe('All attributes, name → value'),
  neighborText: z.array(z.string()).optional().describe('Texts of nearby elements (label, siblings, parent heading)'),
  xpath: z.string().optional().describe('Absolute XPath, e.g. /html/body/div[2]/button[1]'),
  idXpath: z.string().optional().describe('XPath anchored at the nearest ancestor with an id'),
  box: Box.optional().describe('Bounding box'),
  isButton: z.boolean().optional().describe('Clickable as a button (button, input[type=submit|button], role=button)'),
  visible: z.boolean().optional().describe('Visible at capture time'),
});
export type Fingerprint = z.output<typeof Fingerprint>;
