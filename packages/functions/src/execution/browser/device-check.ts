import type { BrowserSettings } from '@svc/core/contracts/browser-settings';
import { DEVICE_NAMES } from './device-names.ts';

const known = new Set(DEVICE_NAMES);

/** Why a device name is not one Playwright knows, with the nearest names; undefined when it is. */
export function unknownDevice(name: string): string | undefined {
  if (known.has(name)) return undefined;
  // Nearest: most words in common, then the longest common start; newer models (later in the list) first.
  const words = new Set(name.toLowerCase().split(/\s+/).filter(Boolean));
  const scored = DEVICE_NAMES.map((d, i) => ({ d, i, shared: d.toLowerCase().split(/\s+/).filter((w) => words.has(w)).length, prefix: commonStart(d.toLowerCase(), name.toLowerCase()) }));
  const near = scored
    .filter((x) => x.shared > 0 && !x.d.endsWith('landscape'))
    .sort((a, b) => b.shared - a.shared || b.prefix - a.prefix || b.i - a.i)
    .slice(0, 5)
    .map((x) => x.d);
  return `unknown device ${JSON.stringify(name)}${near.length ? `; did you mean ${near.map((d) => JSON.stringify(d)).join(', ')}?` : ' (Playwright\'s device names, e.g. "iPhone 13", "Pixel 7", "Desktop Chrome")'}`;
}

/** Field problems of a literal device name (one made by a variable is checked when the test runs). */
export function browserSettingsIssues(settings: BrowserSettings | null | undefined, path: string): Array<{ path: string; message: string }> {
  const device = settings?.device;
  if (!device || device.includes('{{')) return [];
  const problem = unknownDevice(device);
  return problem ? [{ path: `${path}.device`, message: problem }] : [];
}

function commonStart(a: string, b: string): number {
  let n = 0;
  while (n < a.length && n < b.length && a[n] === b[n]) n++;
  return n;
}
