import { z } from 'zod';
import type { LogLevel } from '../shared/logger.ts';
import { PublicUrl } from '../shared/public-url.ts';
import { kmsKeyArn } from '../aws/config.ts';

/**
 * Configuration of the run graph's Task Lambdas (infra/run-graph.ts sets it), parsed once
 * from the environment at the entry point.
 */
export const runGraphLambdaEnv = z.object({
  SVC_TABLE_NAME: z.string().trim().min(1, { error: 'must be set' }),
  SVC_BUCKET_NAME: z.string().trim().min(1, { error: 'must be set' }),
  AWS_REGION: z.string().trim().min(1, { error: 'must be set (the Lambda runtime sets it)' }),
  SVC_LOG_LEVEL: z.enum(['DEBUG', 'INFO', 'WARN', 'ERROR', 'SILENT']).default('INFO'),
  // The report task posts a webhook run's commit status, which links to the run's report there.
  SVC_PUBLIC_URL: z.preprocess((v) => (v === '' ? undefined : v), PublicUrl.optional()),
  // Runs open a project's secrets and the report opens notification URLs: required, as for the API.
  SVC_KMS_KEY_ID: kmsKeyArn,
});

export const runGraphLambdaEnvNames = Object.keys(runGraphLambdaEnv.shape);

export interface RunGraphLambdaConfig {
  tableName: string;
  bucketName: string;
  region: string;
  logLevel: LogLevel;
  publicUrl?: string;
  kmsKeyId: string;
}

export function loadRunGraphLambdaConfig(env: Record<string, string | undefined>): RunGraphLambdaConfig {
  const parsed = runGraphLambdaEnv.safeParse(env);
  if (!parsed.success) throw new Error(`invalid run graph Lambda configuration: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  const e = parsed.data;
  return { tableName: e.SVC_TABLE_NAME, bucketName: e.SVC_BUCKET_NAME, region: e.AWS_REGION, logLevel: e.SVC_LOG_LEVEL, kmsKeyId: e.SVC_KMS_KEY_ID, ...(e.SVC_PUBLIC_URL ? { publicUrl: e.SVC_PUBLIC_URL } : {}) };
}
