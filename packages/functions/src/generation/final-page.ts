import type { UiDriver, UiSession } from '@svc/core/execution/types';
import { ACT_MAX_SCREENSHOT_BYTES, type ActFinalPage, type ActScreenshot } from '@svc/core/contracts/act';
import { EXTRACT_MAX_SNAPSHOT_CHARS } from '@svc/core/contracts/steps';

/** What a caller asks of the page a run ends on. */
export interface FinalPageRequest {
  screenshot: boolean;
  /** The page as text (accessibility snapshot, capped), for a model extracting data from it (POST /api/extract). */
  snapshot?: boolean;
}

/** Reading the page's text must not hold the answer long. */
const SNAPSHOT_MS = 10_000;

/**
 * Records the page a test run ends on — URL, title and, when asked, a PNG — for POST
 * /api/act, which reports where the browser ended up whether the steps passed or not.
 * The runner closes its session when the test ends; the recorder wraps the driver so the
 * page is read just before that close. The PNG travels inline (base64) in the run's
 * result: on AWS the run happens in the browser function, whose /tmp the API cannot read.
 */
export function recordFinalPage(request: FinalPageRequest) {
  let page: ActFinalPage | undefined;

  const capture = async (s: UiSession) => {
    const title = s.title ? await s.title().catch(() => null) : null;
    let screenshot: ActScreenshot | null = null;
    let note: string | undefined;
    if (request.screenshot) {
      try {
        const png = await s.screenshot();
        if (png.byteLength > ACT_MAX_SCREENSHOT_BYTES) note = `the screenshot was ${png.byteLength} bytes, over the cap of ${ACT_MAX_SCREENSHOT_BYTES}`;
        else screenshot = { mime_type: 'image/png', ...pngSize(png), bytes: png.byteLength, base64: Buffer.from(png).toString('base64') };
      } catch (err) {
        note = `the screenshot could not be taken: ${(err as Error).message.split('\n')[0]}`;
      }
    }
    const ctx = { signal: AbortSignal.timeout(SNAPSHOT_MS), deadline: Date.now() + SNAPSHOT_MS, log: () => undefined };
    const snapshot = request.snapshot && s.snapshot ? await s.snapshot(EXTRACT_MAX_SNAPSHOT_CHARS, ctx).catch(() => undefined) : undefined;
    page = { url: s.url(), title, screenshot, ...(note && { screenshot_note: note }), ...(snapshot && { snapshot }) };
  };

  // Every method but close goes to the session itself (bound, so its own state stays its own).
  const capturingOnClose = (s: UiSession): UiSession =>
    new Proxy(s, {
      get(target, prop) {
        if (prop === 'close') return async () => {
          await capture(target).catch(() => undefined);
          await target.close();
        };
        const v = Reflect.get(target, prop, target);
        return typeof v === 'function' ? v.bind(target) : v;
      },
    });

  return {
    /** The run's browser, whose sessions record their last page when closed. */
    wrap: (open: () => Promise<UiDriver>) => async (): Promise<UiDriver> => {
      const driver = await open();
      return { openSession: async (options) => capturingOnClose(await driver.openSession(options)), close: () => driver.close() };
    },
    /** Set once the run's session closed (undefined when the run never opened a page). */
    get page(): ActFinalPage | undefined {
      return page;
    },
  };
}

/** Width and height from a PNG's IHDR chunk (bytes 16..23, big-endian). */
function pngSize(png: Uint8Array): { width: number; height: number } {
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  return png.byteLength >= 24 ? { width: view.getUint32(16), height: view.getUint32(20) } : { width: 0, height: 0 };
}
