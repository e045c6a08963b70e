/**
 * The parts of a healing cache key that describe the situation rather than the selector:
 * the page as a URL path pattern and the kind of locator failure.
 */
export const failureClasses = ['not_found', 'not_unique', 'not_visible', 'not_actionable', 'invalid_selector', 'other'] as const;
export type FailureClass = (typeof failureClasses)[number];

/** Classifies a locator failure from the driver's StepFailure message and details. */
export function failureClass(message: string, details?: Record<string, unknown>): FailureClass {
  const count = typeof details?.count === 'number' ? details.count : /matched (\d+) elements?/.exec(message)?.[1];
  if (count !== undefined) return Number(count) === 0 ? 'not_found' : 'not_unique';
  if (/not a valid selector|invalid selector/i.test(message)) return 'invalid_selector';
  if (/not visible|hidden|outside of the viewport/i.test(message)) return 'not_visible';
  if (/cannot take this action|not a <select>|not enabled|disabled/i.test(message)) return 'not_actionable';
  if (/not found|no element|waiting for/i.test(message)) return 'not_found';
  return 'other';
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const NUMERIC = /^\d+$/;
const LONG_HEX = /^[0-9a-f]{16,}$/i;

/**
 * The path of a URL with numeric, UUID and long hex segments replaced by `:id`, so
 * /orders/42 and /orders/97 share cache entries. Query and fragment are dropped; a
 * string that is not a URL is treated as a path.
 */
export function urlPathPattern(url: string): string {
  let path: string;
  try {
    path = new URL(url).pathname;
  } catch {
    path = url.split(/[?#]/)[0] || '/';
  }
  const segments = path.split('/').map((s) => {
    let seg: string;
    try {
      seg = decodeURIComponent(s);
    } catch {
      seg = s;
    }
    return UUID.test(seg) || NUMERIC.test(seg) || LONG_HEX.test(seg) ? ':id' : s;
  });
  const out = segments.join('/') || '/';
  return out.startsWith('/') ? out : `/${out}`;
}
