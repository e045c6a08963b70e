import { PNG } from 'pngjs';
import pixelmatch from 'pixelmatch';
import { createHash } from 'node:crypto';

/**
 * Visual regression: two PNG screenshots compared pixel by pixel (pixelmatch's YIQ colour
 * distance, anti-aliased pixels ignored, as Playwright's toHaveScreenshot does).
 */

export interface VisualTolerance {
  /** Per-pixel colour distance (0–1) under which two pixels count as equal. Default 0.2, Playwright's. */
  threshold?: number;
  /** Differing pixels allowed. Default 0. */
  max_diff_pixels?: number;
  /** Differing pixels allowed, as a share (0–1) of all pixels. */
  max_diff_ratio?: number;
}

export interface VisualComparison {
  /** Same size and within the tolerance. */
  match: boolean;
  width: number;
  height: number;
  /** Set when the sizes differ (then nothing was compared pixel by pixel). */
  size_mismatch?: { baseline: { width: number; height: number }; actual: { width: number; height: number } };
  diff_pixels: number;
  /** diff_pixels / all pixels, 0–1. */
  diff_ratio: number;
  /** The actual image with differing pixels in red over a faded copy; absent when identical or sizes differ. */
  diff_png?: Uint8Array;
}

export const DEFAULT_VISUAL_THRESHOLD = 0.2;

export class ImageDecodeError extends Error {
  constructor(readonly which: string, cause: unknown) {
    super(`${which} is not a readable PNG image: ${(cause as Error)?.message ?? String(cause)}`);
    this.name = 'ImageDecodeError';
  }
}

/**
 * Decodes a PNG. Interlaced ones are refused before decoding: pngjs inflates those
 * without a bound, so a small crafted file could take gigabytes. Screenshots (Chromium's)
 * are never interlaced.
 */
export function decodePng(bytes: Uint8Array, which = 'image'): PNG {
  const header = pngHeader(bytes);
  if (header?.interlaced) throw new ImageDecodeError(which, new Error('interlaced PNGs are not supported'));
  try {
    return PNG.sync.read(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  } catch (err) {
    throw new ImageDecodeError(which, err);
  }
}

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/** What a PNG's IHDR chunk says, without decoding anything; undefined when the bytes do not start like a PNG. */
export function pngHeader(bytes: Uint8Array): { width: number; height: number; interlaced: boolean } | undefined {
  if (bytes.length < 33 || PNG_SIGNATURE.some((b, i) => bytes[i] !== b)) return undefined;
  // The first chunk must be IHDR (length 13): width, height, bit depth, colour type, compression, filter, interlace.
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const ihdr = view.getUint32(8) === 13 && bytes[12] === 0x49 && bytes[13] === 0x48 && bytes[14] === 0x44 && bytes[15] === 0x52;
  if (!ihdr) return undefined;
  return { width: view.getUint32(16), height: view.getUint32(20), interlaced: bytes[28] !== 0 };
}

/** Width and height from a PNG's header, without decoding its pixels. */
export function pngSize(bytes: Uint8Array): { width: number; height: number } | undefined {
  const header = pngHeader(bytes);
  return header && { width: header.width, height: header.height };
}

/** Compares an actual screenshot with its baseline. Throws ImageDecodeError for bytes that are not PNG. */
export function compareScreenshots(baseline: Uint8Array, actual: Uint8Array, tolerance: VisualTolerance = {}): VisualComparison {
  // Chromium encodes the same pixels to the same bytes: an unchanged page needs no decoding
  // (two 1280×720 decodes are ~90 ms here, bench:visual).
  const header = pngHeader(actual);
  if (header && !header.interlaced && baseline.byteLength === actual.byteLength && Buffer.compare(baseline, actual) === 0) {
    return { match: true, width: header.width, height: header.height, diff_pixels: 0, diff_ratio: 0 };
  }
  const a = decodePng(baseline, 'the baseline');
  const b = decodePng(actual, 'the screenshot');
  const total = b.width * b.height;
  if (a.width !== b.width || a.height !== b.height) {
    return {
      match: false,
      width: b.width,
      height: b.height,
      size_mismatch: { baseline: { width: a.width, height: a.height }, actual: { width: b.width, height: b.height } },
      diff_pixels: total,
      diff_ratio: 1,
    };
  }
  if (Buffer.compare(a.data, b.data) === 0) return { match: true, width: b.width, height: b.height, diff_pixels: 0, diff_ratio: 0 };
  const diff = new PNG({ width: b.width, height: b.height });
  const diffPixels = pixelmatch(a.data, b.data, diff.data, b.width, b.height, { threshold: tolerance.threshold ?? DEFAULT_VISUAL_THRESHOLD, alpha: 0.2 });
  const ratio = total ? diffPixels / total : 0;
  return {
    match: withinTolerance(diffPixels, ratio, tolerance),
    width: b.width,
    height: b.height,
    diff_pixels: diffPixels,
    diff_ratio: ratio,
    ...(diffPixels > 0 ? { diff_png: new Uint8Array(PNG.sync.write(diff)) } : {}),
  };
}

/** Within the allowance: max_diff_pixels and max_diff_ratio both hold (an absent one is 0 unless the other is given). */
function withinTolerance(diffPixels: number, ratio: number, t: VisualTolerance): boolean {
  if (t.max_diff_pixels === undefined && t.max_diff_ratio === undefined) return diffPixels === 0;
  if (t.max_diff_pixels !== undefined && diffPixels > t.max_diff_pixels) return false;
  if (t.max_diff_ratio !== undefined && ratio > t.max_diff_ratio) return false;
  return true;
}

/** SHA-256 of the bytes (hex): a baseline's identity and blob key. */
export function screenshotHash(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** A one-line account of a comparison, for errors and reports. */
export function describeComparison(c: VisualComparison): string {
  if (c.size_mismatch) {
    const { baseline: b, actual: a } = c.size_mismatch;
    return `size differs: baseline ${b.width}×${b.height}, screenshot ${a.width}×${a.height}`;
  }
  const pct = c.diff_ratio * 100;
  return `${c.diff_pixels.toLocaleString('en-US')} of ${(c.width * c.height).toLocaleString('en-US')} pixels differ (${pct < 0.01 && pct > 0 ? '<0.01' : pct.toFixed(2)} %)`;
}
