import { levenshtein } from '../healing/string-similarity.ts';

/**
 * The option a mistyped value most likely meant (`clik` → `click`, `buton` → `button`):
 * the nearest by edit distance, when it is close (at most a third of the value's length,
 * and at most 3 edits); undefined when nothing is.
 */
export function didYouMean(value: string, options: readonly string[]): string | undefined {
  const v = value.trim().toLowerCase();
  if (!v || v.length > 100) return undefined;
  let best: { option: string; distance: number } | undefined;
  for (const option of options) {
    const distance = levenshtein(v, option.toLowerCase());
    if (!best || distance < best.distance) best = { option, distance };
  }
  return best && best.distance > 0 && best.distance <= Math.min(3, Math.max(1, Math.floor(v.length / 3))) ? best.option : undefined;
}
