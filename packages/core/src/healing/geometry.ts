/**
 * Geometric similarity of bounding boxes. Layouts shift between versions, so position
 * decays smoothly with distance rather than demanding equality; size is compared by
 * ratio; overlap (intersection over union) is the VON Similo signal that two records are
 * the same visual thing.
 */
import type { Fingerprint } from '../contracts/fingerprint.ts';

export type Box = NonNullable<Fingerprint['box']>;

/** Distance, in CSS pixels, at which position similarity has fallen to ½. */
export const POSITION_HALF_DISTANCE = 120;

const center = (b: Box) => [b.x + b.width / 2, b.y + b.height / 2] as const;

/** 1 at the same centre, ½ at POSITION_HALF_DISTANCE px, → 0 far away. */
export function positionSimilarity(a: Box, b: Box): number {
  const [ax, ay] = center(a);
  const [bx, by] = center(b);
  const d = Math.hypot(ax - bx, ay - by);
  return 1 / (1 + d / POSITION_HALF_DISTANCE);
}

/** Product of width and height ratios (smaller / larger); 1 for the same size. */
export function sizeSimilarity(a: Box, b: Box): number {
  const r = (p: number, q: number) => (p <= 0 && q <= 0 ? 1 : p <= 0 || q <= 0 ? 0 : Math.min(p, q) / Math.max(p, q));
  return r(a.width, b.width) * r(a.height, b.height);
}

/** Intersection over union of the two rectangles. */
export function overlap(a: Box, b: Box): number {
  const ix = Math.max(0, Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x));
  const iy = Math.max(0, Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y));
  const inter = ix * iy;
  const union = a.width * a.height + b.width * b.height - inter;
  return union > 0 ? inter / union : 0;
}

/** Aspect-ratio similarity (Similo's "shape"): smaller / larger of width/height ratios. */
export function shapeSimilarity(a: Box, b: Box): number {
  if (a.height <= 0 || b.height <= 0 || a.width <= 0 || b.width <= 0) return a.width === b.width && a.height === b.height ? 1 : 0;
  const ra = a.width / a.height;
  const rb = b.width / b.height;
  return Math.min(ra, rb) / Math.max(ra, rb);
}

/** A box the engine can compare: finite, non-negative size, not absurdly large. */
export function usableBox(b: Box | undefined): b is Box {
  return !!b && [b.x, b.y, b.width, b.height].every((v) => Number.isFinite(v) && Math.abs(v) < 1e7) && b.width >= 0 && b.height >= 0;
}
