import { AppError, notFound, validationFailed } from '../errors.ts';
import type { Blobs } from '../ports/blobs.ts';
import type { Clock } from '../ports/clock.ts';
import type { Store, VisualBaselineItem } from '../store/index.ts';
import { imageMetadata, visualBlobKeys } from '../store/baseline-store.ts';
import { VISUAL_IMAGE_MAX_PIXELS, type VisualBaselineAcceptInput } from '../contracts/visual-baseline.ts';
import type { VisualCompareInput, VisualCompareResponse } from '../contracts/visual-compare.ts';
import { compareScreenshots, decodePng, describeComparison, ImageDecodeError, pngHeader, screenshotHash } from '../visual/compare.ts';

export interface VisualBaselineServiceDeps {
  store: Store;
  clock: Clock;
  /** Where images live; absent → every operation that needs an image answers NOT_CONFIGURED. */
  blobs?: Blobs;
}

type ImageRef = VisualCompareInput['baseline'];

/**
 * Server-side visual baselines (REST and MCP): accept a run's proposed screenshot or an
 * upload as a test's baseline, serve images, compare two images. Records and images are the
 * ones server runs use (store/baseline-store.ts); everything is scoped to one organization,
 * so another organization's ids and hashes are simply not found.
 */
export function visualBaselineService(deps: VisualBaselineServiceDeps) {
  const { store } = deps;
  const blobsOf = (): Blobs => {
    if (!deps.blobs) throw new AppError('NOT_CONFIGURED', 'visual baseline images need a blob store, and none is configured on this server');
    return deps.blobs;
  };

  const service = {
    /** An image of the organization by hash: an accepted baseline or a proposed screenshot. */
    async image(orgId: string, hash: string): Promise<{ png: Uint8Array; kind: 'baseline' | 'proposed' } | undefined> {
      const blobs = blobsOf();
      const accepted = await blobs.get(visualBlobKeys.baseline(orgId, hash));
      if (accepted) return { png: accepted.body, kind: 'baseline' };
      const proposed = await blobs.get(visualBlobKeys.proposed(orgId, hash));
      return proposed ? { png: proposed.body, kind: 'proposed' } : undefined;
    },

    /** The current image of a stored baseline; NOT_FOUND when the record or its image is gone. */
    async baselineImage(orgId: string, id: string): Promise<{ record: VisualBaselineItem; png: Uint8Array }> {
      const record = await store.visualBaselines.get(orgId, id);
      if (!record) throw notFound('visual baseline');
      const blob = await blobsOf().get(visualBlobKeys.baseline(orgId, record.screenshot_hash));
      if (!blob) throw new AppError('NOT_FOUND', `the image of visual baseline ${id} (${record.screenshot_hash}) is gone; the next run records a new one`);
      return { record, png: blob.body };
    },

    /**
     * Makes a screenshot the baseline `name` of a test: one a run kept (by hash) or an
     * uploaded PNG. The test's project is the baseline's; metadata keeps what the run
     * recorded (selector, step) and says who accepted it.
     */
    async accept(orgId: string, input: VisualBaselineAcceptInput, acceptedBy: string): Promise<{ record: VisualBaselineItem; source: 'proposed' | 'baseline' | 'upload' }> {
      const blobs = blobsOf();
      const test = await store.tests.get(orgId, input.test_id);
      if (!test) throw notFound('test');
      let png: Uint8Array;
      let source: 'proposed' | 'baseline' | 'upload';
      if (input.screenshot_hash !== undefined) {
        const found = await service.image(orgId, input.screenshot_hash);
        if (!found) throw new AppError('NOT_FOUND', `screenshot_hash: no screenshot ${input.screenshot_hash} in this organization (use a proposed_hash from a run's result)`);
        ({ png, kind: source } = found);
      } else {
        png = checkedImage(input.image!, 'image', true);
        source = 'upload';
      }
      const hash = input.screenshot_hash ?? screenshotHash(png);
      if (source !== 'baseline') await blobs.put(visualBlobKeys.baseline(orgId, hash), png, 'image/png');
      const existing = await store.visualBaselines.getByName(orgId, test.id, input.name);
      const metadata = { ...existing?.metadata, ...imageMetadata(png), accepted_by: acceptedBy, accepted_at: deps.clock.now().toISOString() };
      const record = await store.visualBaselines.put(orgId, { project_id: test.project_id, test_id: test.id, name: input.name, screenshot_hash: hash, metadata });
      // Accepted now: the copy under baselines/ serves its hash from here on (image() looks there first).
      if (source !== 'upload') await blobs.delete(visualBlobKeys.proposed(orgId, hash));
      return { record, source };
    },

    /** Compares two images (inline, stored baselines or stored screenshots) as a visual assertion does. */
    async compare(orgId: string, input: VisualCompareInput): Promise<VisualCompareResponse> {
      const [baseline, actual] = await Promise.all([service.resolve(orgId, input.baseline, 'baseline'), service.resolve(orgId, input.actual, 'actual')]);
      let result;
      try {
        result = compareScreenshots(baseline, actual, input);
      } catch (err) {
        if (err instanceof ImageDecodeError) throw validationFailed([{ path: err.which === 'the baseline' ? 'baseline' : 'actual', message: err.message }]);
        throw err;
      }
      return {
        match: result.match,
        width: result.width,
        height: result.height,
        ...(result.size_mismatch ? { size_mismatch: result.size_mismatch } : {}),
        diff_pixels: result.diff_pixels,
        diff_ratio: result.diff_ratio,
        summary: describeComparison(result),
        ...(input.include_diff && result.diff_png ? { diff_png: Buffer.from(result.diff_png).toString('base64') } : {}),
      };
    },

    /** One side of a comparison as PNG bytes; `field` names it in errors. */
    async resolve(orgId: string, ref: ImageRef, field: string): Promise<Uint8Array> {
      if (typeof ref === 'string') return checkedImage(ref, field, false);
      if ('baseline_id' in ref) {
        const record = await store.visualBaselines.get(orgId, ref.baseline_id);
        if (!record) throw new AppError('NOT_FOUND', `${field}.baseline_id: no visual baseline ${ref.baseline_id} in this organization`);
        const blob = await blobsOf().get(visualBlobKeys.baseline(orgId, record.screenshot_hash));
        if (!blob) throw new AppError('NOT_FOUND', `${field}.baseline_id: the image of visual baseline ${record.id} is gone; the next run records a new one`);
        return checkedSize(blob.body, field);
      }
      const found = await service.image(orgId, ref.screenshot_hash);
      if (!found) throw new AppError('NOT_FOUND', `${field}.screenshot_hash: no screenshot ${ref.screenshot_hash} in this organization`);
      return checkedSize(found.png, field);
    },
  };
  return service;
}

export type VisualBaselineService = ReturnType<typeof visualBaselineService>;

/** Base64 → PNG bytes, refused (400 naming `field`) unless it is a PNG of a size the API decodes; `decode` also checks the pixels. */
function checkedImage(base64: string, field: string, decode: boolean): Uint8Array {
  const bytes = new Uint8Array(Buffer.from(base64, 'base64'));
  checkedSize(bytes, field);
  if (decode) {
    try {
      decodePng(bytes, 'the image');
    } catch (err) {
      if (err instanceof ImageDecodeError) throw validationFailed([{ path: field, message: err.message }]);
      throw err;
    }
  }
  return bytes;
}

/** A PNG header within VISUAL_IMAGE_MAX_PIXELS, checked before anything allocates its pixels. */
function checkedSize(bytes: Uint8Array, field: string): Uint8Array {
  const size = pngHeader(bytes);
  if (!size) throw validationFailed([{ path: field, message: 'not a PNG image (no PNG signature and IHDR header)' }]);
  // Decoding an interlaced PNG is unbounded in pngjs (a 1.5 MB file can take gigabytes).
  if (size.interlaced) throw validationFailed([{ path: field, message: 'interlaced PNGs are not supported' }]);
  if (size.width * size.height > VISUAL_IMAGE_MAX_PIXELS) {
    throw validationFailed([{ path: field, message: `the image is ${size.width}×${size.height}, more than ${VISUAL_IMAGE_MAX_PIXELS.toLocaleString('en-US')} pixels` }]);
  }
  return bytes;
}
