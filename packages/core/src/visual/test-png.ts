import { PNG } from 'pngjs';

/** Test support: real PNG bytes of a solid image, optionally with a rectangle of another colour. */
export function pngOf(width: number, height: number, fill: [number, number, number], patch?: { x: number; y: number; w: number; h: number; rgb: [number, number, number] }): Uint8Array {
  const png = new PNG({ width, height });
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const inPatch = patch && x >= patch.x && x < patch.x + patch.w && y >= patch.y && y < patch.y + patch.h;
      const [r, g, b] = inPatch ? patch.rgb : fill;
      const i = (y * width + x) * 4;
      png.data[i] = r;
      png.data[i + 1] = g;
      png.data[i + 2] = b;
      png.data[i + 3] = 255;
    }
  }
  return new Uint8Array(PNG.sync.write(png));
}
