import { z } from 'zod';
import { consumerNames, type ConsumerName } from '@svc/core/events/routing';
import { parseAnalyzeRoots } from '../../intelligence/read-repository.ts';

/**
 * Environment of the event Lambdas (consumers and the republisher), parsed once at the
 * entry point; infra/events.ts sets exactly these.
 */
const schema = z.object({
  AWS_REGION: z.string().trim().min(1),
  SVC_TABLE_NAME: z.string().trim().min(1),
  SVC_EVENT_BUS_NAME: z.string().trim().min(1),
  SVC_CONSUMER: z.enum(consumerNames).optional(),
  SVC_RETRY_QUEUE_URL: z.preprocess((v) => (v === '' ? undefined : v), z.url().optional()),
  SVC_BUCKET_NAME: z.preprocess((v) => (v === '' ? undefined : v), z.string().trim().min(1).optional()),
  SVC_ANALYZE_ROOTS: z.string().optional(),
});

export interface EventsConfig {
  region: string;
  tableName: string;
  busName: string;
  consumer?: ConsumerName;
  retryQueueUrl?: string;
  /** The artifacts bucket (the knowledge worker's uploads and analyses). */
  bucketName?: string;
  /** Folders the knowledge worker may read (a file system mounted on its function); usually none. */
  analyzeRoots: string[];
}

/** Variables infra must set on every event function. */
export const eventsEnvVarNames = Object.keys(schema.shape);

/** Parses the environment; the error names each bad variable and never echoes values. */
export function loadEventsConfig(env: Record<string, string | undefined>): EventsConfig {
  const r = schema.safeParse(env);
  if (!r.success) throw new Error(`invalid events configuration: ${r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  const c = r.data;
  if (c.SVC_CONSUMER === 'dlq-processor' && !c.SVC_RETRY_QUEUE_URL) throw new Error('invalid events configuration: SVC_RETRY_QUEUE_URL: required for the dlq-processor');
  if (c.SVC_CONSUMER === 'knowledge-worker' && !c.SVC_BUCKET_NAME) throw new Error('invalid events configuration: SVC_BUCKET_NAME: required for the knowledge-worker');
  return {
    region: c.AWS_REGION, tableName: c.SVC_TABLE_NAME, busName: c.SVC_EVENT_BUS_NAME, consumer: c.SVC_CONSUMER, retryQueueUrl: c.SVC_RETRY_QUEUE_URL,
    bucketName: c.SVC_BUCKET_NAME, analyzeRoots: parseAnalyzeRoots(c.SVC_ANALYZE_ROOTS),
  };
}
