import type { Page } from 'playwright-core';
import { untraced } from './untraced.ts';

/** The world svc's in-page checks (axe-core, performance readings) run in. */
const WORLD_NAME = 'svc-checks';

export class IsolatedWorldError extends Error {}

/**
 * Evaluates `expression` in a fresh isolated world of the page's main frame (CDP
 * Page.createIsolatedWorld, as browser extensions' content scripts run): it shares the
 * page's DOM but none of its JavaScript globals, so a library loaded there (axe-core) can
 * neither be broken by the page's own scripts nor change them — window.axe of the page stays
 * the page's. Returns the value by JSON; an exception in the page, or no answer by
 * `timeoutMs`, throws IsolatedWorldError. Kept out of traces (untraced).
 * Chromium only, as the rest of the runner.
 */
export async function evaluateIsolated<T>(page: Page, expression: string, timeoutMs: number): Promise<T> {
  return untraced(page, async () => {
    const cdp = await page.context().newCDPSession(page);
    let timer: NodeJS.Timeout | undefined;
    try {
      const { frameTree } = await cdp.send('Page.getFrameTree');
      const { executionContextId } = await cdp.send('Page.createIsolatedWorld', { frameId: frameTree.frame.id, worldName: WORLD_NAME });
      const evaluation = cdp.send('Runtime.evaluate', { expression, contextId: executionContextId, returnByValue: true, awaitPromise: true });
      const expired = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new IsolatedWorldError(`no answer within ${timeoutMs} ms`)), timeoutMs);
      });
      evaluation.catch(() => {}); // settles after the timeout when that wins; detach ends it
      const { result, exceptionDetails } = await Promise.race([evaluation, expired]);
      if (exceptionDetails) throw new IsolatedWorldError(exceptionDetails.exception?.description?.split('\n')[0] ?? exceptionDetails.text);
      return result.value as T;
    } finally {
      clearTimeout(timer);
      await cdp.detach().catch(() => {});
    }
  });
}
