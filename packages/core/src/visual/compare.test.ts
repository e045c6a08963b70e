import { describe, it, expect } from 'vitest';
import { PNG } from 'pngjs';
import { pngOf } from './test-png.ts';
import { compareScreenshots, describeComparison, ImageDecodeError, pngSize, screenshotHash } from './compare.ts';

const white: [number, number, number] = [255, 255, 255];

describe('compareScreenshots', () => {
  it('matches identical images without drawing a diff', () => {
    const a = pngOf(40, 30, white);
    const r = compareScreenshots(a, pngOf(40, 30, white));
    expect(r).toMatchObject({ match: true, width: 40, height: 30, diff_pixels: 0, diff_ratio: 0 });
    expect(r.diff_png).toBeUndefined();
  });

  it('counts the differing pixels and draws them red in a diff image of the same size', () => {
    const r = compareScreenshots(pngOf(40, 30, white), pngOf(40, 30, white, { x: 5, y: 5, w: 10, h: 4, rgb: [0, 0, 0] }));
    expect(r.match).toBe(false);
    expect(r.diff_pixels).toBe(40);
    expect(r.diff_ratio).toBeCloseTo(40 / 1200, 6);
    const diff = PNG.sync.read(Buffer.from(r.diff_png!));
    expect([diff.width, diff.height]).toEqual([40, 30]);
    const at = (x: number, y: number) => [...diff.data.subarray((y * 40 + x) * 4, (y * 40 + x) * 4 + 3)];
    expect(at(6, 6)).toEqual([255, 0, 0]);
    expect(at(30, 20)).not.toEqual([255, 0, 0]);
    expect(describeComparison(r)).toBe('40 of 1,200 pixels differ (3.33 %)');
  });

  it('lets a tolerance in pixels or as a share pass small differences, and not larger ones', () => {
    const base = pngOf(40, 30, white);
    const changed = pngOf(40, 30, white, { x: 0, y: 0, w: 5, h: 2, rgb: [0, 0, 0] }); // 10 pixels
    expect(compareScreenshots(base, changed, { max_diff_pixels: 10 }).match).toBe(true);
    expect(compareScreenshots(base, changed, { max_diff_pixels: 9 }).match).toBe(false);
    expect(compareScreenshots(base, changed, { max_diff_ratio: 0.01 }).match).toBe(true); // 10/1200 < 1 %
    expect(compareScreenshots(base, changed, { max_diff_ratio: 0.005 }).match).toBe(false);
    expect(compareScreenshots(base, changed, { max_diff_pixels: 20, max_diff_ratio: 0.005 }).match).toBe(false); // both must hold
  });

  it('ignores colour changes below the threshold and sees them above it', () => {
    const base = pngOf(20, 20, white);
    const faint = pngOf(20, 20, white, { x: 0, y: 0, w: 20, h: 20, rgb: [250, 250, 250] });
    expect(compareScreenshots(base, faint).match).toBe(true);
    expect(compareScreenshots(base, faint, { threshold: 0 }).match).toBe(false);
  });

  it('reports a size change without comparing pixels', () => {
    const r = compareScreenshots(pngOf(40, 30, white), pngOf(40, 50, white));
    expect(r).toMatchObject({ match: false, diff_ratio: 1, size_mismatch: { baseline: { width: 40, height: 30 }, actual: { width: 40, height: 50 } } });
    expect(describeComparison(r)).toBe('size differs: baseline 40×30, screenshot 40×50');
  });

  it('refuses an interlaced PNG before decoding it (pngjs inflates those without a bound)', () => {
    const interlaced = pngOf(4, 4, white);
    interlaced[28] = 1; // the IHDR interlace method: Adam7
    expect(() => compareScreenshots(pngOf(4, 4, white), interlaced)).toThrow(/the screenshot is not a readable PNG image: interlaced PNGs are not supported/);
  });

  it('names which image is not a PNG', () => {
    expect(() => compareScreenshots(new TextEncoder().encode('not a png'), pngOf(2, 2, white))).toThrow(ImageDecodeError);
    expect(() => compareScreenshots(pngOf(2, 2, white), new Uint8Array([1, 2, 3]))).toThrow(/the screenshot is not a readable PNG/);
  });
});

describe('pngSize and screenshotHash', () => {
  it('reads the size from the header and hashes the bytes', () => {
    const png = pngOf(123, 45, white);
    expect(pngSize(png)).toEqual({ width: 123, height: 45 });
    expect(pngSize(new Uint8Array(10))).toBeUndefined();
    expect(screenshotHash(png)).toMatch(/^[0-9a-f]{64}$/);
    expect(screenshotHash(png)).toBe(screenshotHash(pngOf(123, 45, white)));
  });
});
