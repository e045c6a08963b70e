import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { z } from 'zod';
import { createStore } from '@svc/core/store/index';
import { systemClock } from '@svc/core/ports/clock';
import { createLogger } from '../shared/logger.ts';
import { createPlaywrightDriver, type PlaywrightDriver } from '../execution/browser/playwright-driver.ts';
import { createSqlDriver } from '../execution/sql/sql-driver.ts';
import { createGenerationExecutor } from '../generation/execute-once.ts';
import { kmsSecretCipher } from '../secrets/kms-cipher.ts';
import { performBrowserJob, type BrowserWorkDeps } from '../browser-work/perform.ts';
import type { BrowserJob, BrowserJobOutcome } from '../browser-work/protocol.ts';
import { kmsKeyArn } from './config.ts';
import { DynamoDbTable } from './dynamodb-table.ts';
import { S3Blobs } from './s3-blobs.ts';

/**
 * The browser function (infra/browser.ts): the browser work the API function cannot do,
 * since it ships no Chromium — discovery crawls (a stored session's, invoked
 * asynchronously, and /api/discover's, answered), the quality audit's page observation,
 * a generated UI test's one run and a report's PDF. It runs the local runtime's code for each
 * (browser-work/perform.ts).
 *
 * Chromium is launched on a job's first use and closed when the job ends: a browser left
 * across the container's freezes can lose its connection, and a launch is ~1–2 s of a
 * crawl. The table and bucket clients are kept per container. Generated tests may use the
 * project's secret variables, so it opens them with the key, like the run graph's tasks.
 */
export const browserFunctionEnv = z.object({
  SVC_TABLE_NAME: z.string().trim().min(1, { error: 'must be set' }),
  SVC_BUCKET_NAME: z.string().trim().min(1, { error: 'must be set' }),
  AWS_REGION: z.string().trim().min(1, { error: 'must be set (the Lambda runtime sets it)' }),
  SVC_LOG_LEVEL: z.enum(['DEBUG', 'INFO', 'WARN', 'ERROR', 'SILENT']).default('INFO'),
  SVC_KMS_KEY_ID: kmsKeyArn,
});

let built: { deps: BrowserWorkDeps; release(): Promise<void> } | undefined;

function build() {
  if (built) return built;
  const parsed = browserFunctionEnv.safeParse(process.env);
  if (!parsed.success) throw new Error(`invalid browser function configuration: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  const e = parsed.data;
  const logger = createLogger(e.SVC_LOG_LEVEL, 'svc-browser');
  const table = new DynamoDbTable({ tableName: e.SVC_TABLE_NAME, client: new DynamoDBClient({ region: e.AWS_REGION }) });
  const store = createStore(table, systemClock, { cipher: kmsSecretCipher({ region: e.AWS_REGION, kmsKeyId: e.SVC_KMS_KEY_ID }) });
  // No zygote: as in the task functions, @sparticuz/chromium's own --no-zygote on Lambda.
  const launch = () => createPlaywrightDriver({ zygote: false });
  let driver: Promise<PlaywrightDriver> | undefined;
  built = {
    deps: {
      store,
      blobs: new S3Blobs({ bucket: e.SVC_BUCKET_NAME, client: new S3Client({ region: e.AWS_REGION }) }),
      logger,
      driver: () => (driver ??= launch().catch((err: unknown) => {
        driver = undefined;
        throw err;
      })),
      // Its own browser per test, closed when the test ends (no batch spans invocations).
      generation: createGenerationExecutor({ store, dataDir: '/tmp/svc-generation', browser: launch, sql: createSqlDriver() }),
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
