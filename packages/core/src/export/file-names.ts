/** A file-name-safe form of a test name: lower-case ASCII words joined by dashes, at most 80 characters. */
export function fileSlug(name: string): string {
  const s = name
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 80)
    .replace(/-+$/, '');
  return s || 'test';
}

/** fileSlug, made unique among `used` with a -2, -3, … suffix; the result is added to `used`. */
export function uniqueFileSlug(name: string, used: Set<string>): string {
  const slug = fileSlug(name);
  let base = slug;
  for (let n = 2; used.has(base); n += 1) base = `${slug}-${n}`;
  used.add(base);
  return base;
}
