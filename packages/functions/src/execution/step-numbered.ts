/**
 * A field path with the step it is in said as reports say it, counting from 1:
 * `steps.1.type` → `steps.1.type (step 2)`. Paths count from 0 (they are JSON paths,
 * as the API's validation errors give them); run messages and reports count steps
 * from 1, and a reader of both should not have to translate.
 */
export function stepNumbered(path: string): string {
  const m = /(?:^|\.)(steps|assertions)\.(\d+)(?:\.|$)/.exec(path);
  if (!m) return path;
  return `${path} (${m[1] === 'steps' ? 'step' : 'assertion'} ${Number(m[2]) + 1})`;
}
