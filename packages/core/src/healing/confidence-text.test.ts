import { describe, expect, it } from 'vitest';
import { confidenceBelow } from './confidence-text.ts';

describe('confidenceBelow', () => {
  it('rounds down, so a confidence just under the threshold never shows as the threshold', () => {
    expect(confidenceBelow(0.7999)).toBe('0.79');
    expect(confidenceBelow(0.29)).toBe('0.29');
    expect(confidenceBelow(0.5)).toBe('0.50');
    expect(confidenceBelow(0)).toBe('0.00');
  });
});
