import type { SecretsKey } from './secrets.ts';
import { artifacts, table } from './storage.ts';

/**
 * The browser function: Chromium for the work the API function cannot do (it ships no
 * browser) — discovery crawls, stored sessions invoked asynchronously and /api/discover's
 * answered, the quality audit's page, generated UI tests' one run and PDF reports
 * (packages/functions/src/aws/browser-handler.ts). The API is told its name
 * (SVC_BROWSER_FUNCTION_NAME) and may invoke it and read its state.
 *
 * Like the run graph's execute_test function it installs Chromium, Playwright and
 * axe-core beside its bundle. It reads and writes the table (sessions, pages, flows) and
 * puts page screenshots in the artifacts bucket; generated tests may use a project's secret
 * variables, so it may open them with the secrets key. No bus, no model. A session's crawl
 * is bounded by its pages and per-page timeout, well inside 15 minutes.
 */
export function declareBrowserWork({ secrets }: { secrets: SecretsKey }) {
  const fn = new sst.aws.Function('BrowserWork', {
    handler: 'packages/functions/src/aws/browser-handler.handler',
    runtime: 'nodejs22.x',
    memory: '2048 MB',
    timeout: '15 minutes',
    link: [table, artifacts],
    environment: { SVC_TABLE_NAME: table.name, SVC_BUCKET_NAME: artifacts.name, ...secrets.environment, POWERTOOLS_SERVICE_NAME: 'svc-browser' },
    permissions: secrets.permissions,
    // axe-core is read as a file (execution/browser/axe.ts), so it is installed beside the bundle, not bundled.
    nodejs: { install: ['@sparticuz/chromium', 'playwright-core', 'axe-core'] },
  });
  return {
    fn,
    /** What the API function needs: the function's name … */
    apiEnvironment: { SVC_BROWSER_FUNCTION_NAME: fn.name },
    /** … and the right to invoke it and to read its state (the data-layer health's browser_grid). */
    apiPermissions: [{ actions: ['lambda:InvokeFunction', 'lambda:GetFunctionConfiguration'], resources: [fn.arn] }],
  };
}

export type BrowserWork = ReturnType<typeof declareBrowserWork>;
