import type { Page, Route } from 'playwright-core';
import type { MockStep } from '@svc/core/contracts/steps';
import { sleep } from '@svc/core/sleep';

/**
 * A mock step: from now on the page's requests that match get the step's answer. The
 * route lives as long as the test's context. Counting is ours, not Playwright's `times`:
 * a request of another method falls through without using up one of the answers.
 */
export async function installMock(page: Page, step: MockStep): Promise<void> {
  const json = step.json !== undefined;
  const body = json ? JSON.stringify(step.json) : step.body;
  const headers = { ...(json && { 'content-type': 'application/json' }), ...step.headers };
  let answered = 0;
  // A path is resolved against the context's base URL by Playwright itself.
  await page.route(step.url, async (route: Route) => {
    if ((step.method && route.request().method() !== step.method) || (step.times !== undefined && answered >= step.times)) return route.fallback();
    answered++;
    try {
      if (step.delay_ms) await sleep(step.delay_ms);
      if (step.abort) await route.abort(step.abort);
      else await route.fulfill({ status: step.status ?? 200, headers, ...(body !== undefined && { body }) });
    } catch {
      // The page or context closed while the answer waited: nobody is listening any more.
    }
  });
}
