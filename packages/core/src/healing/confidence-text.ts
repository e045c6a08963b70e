/**
 * A confidence shown beside "< threshold", rounded down: 0.7999 is "0.79 < 0.8", not
 * "0.80 < 0.8", which read as a bug (found by QA).
 */
export function confidenceBelow(confidence: number): string {
  return (Math.floor(confidence * 100 + 1e-9) / 100).toFixed(2);
}
