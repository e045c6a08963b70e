import { PNG } from 'pngjs';

/**
 * The tallest slice Chromium captures faithfully in one piece. Headless Chromium paints a
 * full-page screenshot into surfaces of at most 8192 px: a taller page came back the height
 * it should be, with its first 8192 px repeated below (a change lower down was never seen;
 * found by QA). Slices of this height, each captured on its own, are right.
 */
export const MAX_SLICE_PX = 8192;

/** The tallest page a full-page comparison stitches (~40 MB of pixels at 1280 px wide). */
export const MAX_STITCHED_PX = 65_536;

/** Vertical slices [y, height) covering a page `height` px tall, each at most MAX_SLICE_PX. */
export function slices(height: number): Array<{ y: number; height: number }> {
  const out: Array<{ y: number; height: number }> = [];
  for (let y = 0; y < height; y += MAX_SLICE_PX) out.push({ y, height: Math.min(MAX_SLICE_PX, height - y) });
  return out;
}

/** One PNG from slices of one width, top to bottom. */
export function stitchVertically(parts: readonly Uint8Array[]): Uint8Array {
  const images = parts.map((p) => PNG.sync.read(Buffer.from(p)));
  const width = images[0]?.width ?? 0;
  const odd = images.find((img) => img.width !== width);
  if (odd) throw new Error(`slices of different widths (${width} and ${odd.width} px) cannot be stitched`);
  const out = new PNG({ width, height: images.reduce((sum, img) => sum + img.height, 0) });
  let offset = 0;
  for (const img of images) {
    img.data.copy(out.data, offset);
    offset += img.data.length;
  }
  return new Uint8Array(PNG.sync.write(out));
}
