import { Logger } from '@aws-lambda-powertools/logger';
import type { AppDeps } from '../api/deps.ts';
import { housekeeping, type HousekeepingResult } from '../shared/housekeeping.ts';
import { loadAwsConfig, type AwsConfig } from './config.ts';
import { buildAwsDeps } from './deps.ts';

/**
 * Daily housekeeping on AWS (infra/api.ts): visual images nobody can accept or read any
 * more, and run artifacts past the operator's retention, leave the bucket
 * (shared/housekeeping.ts). The local runtime runs the same sweep on a timer.
 */

const logger = new Logger({ serviceName: 'svc-housekeeping' });

let built: Promise<{ deps: AppDeps; config: AwsConfig }> | undefined;

function getDeps() {
  if (!built) {
    const config = loadAwsConfig(process.env);
    built = buildAwsDeps(config).then((deps) => ({ deps, config }));
    built.catch(() => {
      built = undefined; // a failed build is tried again on the next day's run
    });
  }
  return built;
}

export async function handler(): Promise<HousekeepingResult> {
  const { deps, config } = await getDeps();
  if (!deps.blobs) throw new Error('housekeeping needs the artifacts bucket: SVC_BUCKET_NAME is not set');
  const result = await housekeeping(deps, deps.blobs, config);
  logger.info('housekeeping done', { ...result });
  return result;
}
