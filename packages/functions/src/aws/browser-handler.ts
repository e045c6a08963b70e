import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { z } from 'zod';
import { createStore } from '@svc/core/store/index';
import { systemClock } from '@svc/core/ports/clock';
import { createLogger } from '../shared/logger.ts';
import { createPlaywrightDriver, type PlaywrightDriver } from '../execution/browser/playwright-driver.ts';
import { performBrowserJob, type BrowserWorkDeps } from '../browser-work/perform.ts';
import type { BrowserJob, BrowserJobOutcome } from '../browser-work/protocol.ts';
import { DynamoDbTable } from './dynamodb-table.ts';
import { S3Blobs } from './s3-blobs.ts';

/**
 * The browser function (infra/browser.ts): the browser work the API function cannot do,
 * since it ships no Chromium — discovery crawls (a stored session's, invoked
 * asynchronously, and /api/discover's, answered) and the quality audit's page
 * observation. It runs the local runtime's code for each (browser-work/perform.ts).
 *
 * Chromium is launched on a job's first use and closed when the job ends: a browser left
 * across the container's freezes can lose its connection, and a launch is ~1–2 s of a
 * crawl. The table and bucket clients are kept per container. It opens no stored secret,
 * so it has no key.
 */
export const browserFunctionEnv = z.object({
  SVC_TABLE_NAME: z.string().trim().min(1, { error: 'must be set' }),
  SVC_BUCKET_NAME: z.string().trim().min(1, { error: 'must be set' }),
  AWS_REGION: z.string().trim().min(1, { error: 'must be set (the Lambda runtime sets it)' }),
  SVC_LOG_LEVEL: z.enum(['DEBUG', 'INFO', 'WARN', 'ERROR', 'SILENT']).default('INFO'),
});

let built: { deps: BrowserWorkDeps; release(): Promise<void> } | undefined;

function build() {
  if (built) return built;
  const parsed = browserFunctionEnv.safeParse(process.env);
  if (!parsed.success) throw new Error(`invalid browser function configuration: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  const e = parsed.data;
  const logger = createLogger(e.SVC_LOG_LEVEL, 'svc-browser');
  const table = new DynamoDbTable({ tableName: e.SVC_TABLE_NAME, client: new DynamoDBClient({ region: e.AWS_REGION }) });
  let driver: Promise<PlaywrightDriver> | undefined;
  built = {
    deps: {
      store: createStore(table, systemClock),
      blobs: new S3Blobs({ bucket: e.SVC_BUCKET_NAME, client: new S3Client({ region: e.AWS_REGION }) }),
      logger,
      // No zygote: as in the task functions, @sparticuz/chromium's own --no-zygote on Lambda.
      driver: () => (driver ??= createPlaywrightDriver({ zygote: false }).catch((err: unknown) => {
        driver = undefined;
        throw err;
      })),
    },
    async release() {
      const launched = driver;
      driver = undefined;
      await (await launched?.catch(() => undefined))?.close();
    },
  };
  return built;
}

export async function handler(event: BrowserJob): Promise<BrowserJobOutcome> {
  const b = build();
  try {
    return await performBrowserJob(event, b.deps);
  } finally {
    await b.release();
  }
}
