import { describe, expect, it } from 'vitest';
import { base64, imageMime } from './bytes.ts';

describe('base64', () => {
  it('matches Node for every length remainder and for large inputs', () => {
    for (const n of [0, 1, 2, 3, 4, 5, 6, 7, 100, 12_287, 12_288, 12_289, 100_001]) {
      const bytes = new Uint8Array(n).map((_, i) => (i * 7919 + n) & 0xff);
      expect(base64(bytes)).toBe(Buffer.from(bytes).toString('base64'));
    }
  });
});

describe('imageMime', () => {
  it('recognises raster images by magic bytes, and nothing else', () => {
    expect(imageMime(Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0]))).toBe('image/png');
    expect(imageMime(Uint8Array.from([0xff, 0xd8, 0xff, 0xe0]))).toBe('image/jpeg');
    expect(imageMime(new TextEncoder().encode('GIF89a'))).toBe('image/gif');
    expect(imageMime(new TextEncoder().encode('RIFF\0\0\0\0WEBPVP8 '))).toBe('image/webp');
    expect(imageMime(new TextEncoder().encode('<svg onload=alert(1)>'))).toBeUndefined();
    expect(imageMime(new Uint8Array())).toBeUndefined();
  });
});
