/** CSS selectors for found elements, from the most stable attribute (test id, id, name, role). */

const cssString = (v: string) => `"${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;

export const testAttributes = ['data-testid', 'data-test-id', 'data-test', 'data-cy', 'data-qa'] as const;

export function selectorFor(tag: string, attrs: Record<string, string>): string {
  for (const a of testAttributes) if (attrs[a]) return `[${a}=${cssString(attrs[a])}]`;
  if (attrs.id && /^[A-Za-z][\w-]*$/.test(attrs.id)) return `#${attrs.id}`;
  if (attrs.name) return `${tag}[name=${cssString(attrs.name)}]`;
  if (attrs.role && attrs['aria-label']) return `[role=${cssString(attrs.role)}][aria-label=${cssString(attrs['aria-label'])}]`;
  if (attrs.role) return `[role=${cssString(attrs.role)}]`;
  if (attrs['aria-label']) return `${tag}[aria-label=${cssString(attrs['aria-label'])}]`;
  return tag;
}

/** Element record fields from a tag and its static attributes; null when it has no test id or role. */
export function elementFrom(tag: string, attrs: Record<string, string>) {
  const testAttribute = testAttributes.find((a) => attrs[a]);
  if (!testAttribute && !attrs.role) return null;
  return {
    tag,
    ...(testAttribute ? { test_attribute: testAttribute, test_id: attrs[testAttribute] } : {}),
    ...(attrs.role ? { role: attrs.role } : {}),
    ...(attrs['aria-label'] || attrs.name || attrs.placeholder ? { label: attrs['aria-label'] ?? attrs.name ?? attrs.placeholder } : {}),
    selector: selectorFor(tag, attrs),
  };
}

export function fieldFrom(tag: string, attrs: Record<string, string>) {
  const testAttribute = testAttributes.find((a) => attrs[a]);
  return {
    tag,
    ...(attrs.name ? { name: attrs.name } : attrs.id ? { name: attrs.id } : {}),
    ...(attrs.type ? { type: attrs.type } : {}),
    ...(testAttribute ? { test_id: attrs[testAttribute] } : {}),
    selector: selectorFor(tag, attrs),
  };
}

export const isFieldTag = (tag: string) => /^(input|select|textarea|button)$/i.test(tag);
