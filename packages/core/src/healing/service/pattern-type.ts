/**
 * The kind of change a fix answers (healing_patterns.pattern_type), judged from the two
 * selectors: what the broken locator relied on tells what changed on the page.
 */
export function patternType(original: string, healed: string): string {
  if (original === healed) return 'unchanged';
  if (/^text=|^\s*text\b|\btext\(\)|has-text/.test(original)) return 'text_changed';
  if (/^#[\w-]+$|^test_id=|data-testid|\[id=|\[name=|^role=/.test(original)) return 'selector_renamed';
  if (/^xpath=|^\/|>|\s/.test(original)) return 'structure_changed';
  return 'attribute_changed';
}
