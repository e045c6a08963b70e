import { z } from 'zod';
import type { LogLevel } from '../shared/logger.ts';
import { PublicUrl } from '../shared/public-url.ts';

/**
 * Configuration of the Lambda entry points, parsed once from the environment that
 * `infra/api.ts` sets (AWS_REGION comes from the Lambda runtime). Nothing below the
 * entry point reads `process.env`; it receives an `AwsConfig`.
 *
 * The variables mean what they mean for the local runtime (packages/functions/src/local/
 * config.ts): svc always runs its built-in token issuer, whose signing key lives in the
 * table, so no secret is configured; `SVC_JWKS_URL` + `SVC_JWT_ISSUER` (+ optional
 * `SVC_JWT_AUDIENCE`) add an external identity provider whose JWTs are accepted too.
 * `SVC_EVENT_BUS_NAME` (set by infra from the declared bus) sends domain events to
 * EventBridge; without it they are checked and dropped. `SVC_STATE_MACHINE_ARN` (set by
 * infra from the declared run graph, infra/run-graph.ts) turns on the run graph routes,
 * with executions on that Step Functions state machine; without it they answer
 * NOT_CONFIGURED. `SVC_METRICS_TOKEN` (optional) makes `GET /metrics` require that bearer
 * token. `SVC_PUBLIC_URL` (optional) is where people reach svc; commit statuses and slash-command run outcomes link there. `SVC_TRUSTED_PROXY_HOPS` (optional, 0 by default) is how many proxies of the operator's stand in front of the function URL and append to X-Forwarded-For; only then is that header read for the client's address (api/client-ip.ts).
 * `SVC_KMS_KEY_ID` (set by infra/secrets.ts, required) is the KMS key ARN that seals
 * the secrets the store keeps.
 */

/** The built-in issuer's `iss` and `aud` on AWS: fixed, the tokens are svc's own. */
export const builtInIssuer = { issuer: 'urn:svc:api', audience: 'svc' } as const;

export const logLevels = ['DEBUG', 'INFO', 'WARN', 'ERROR', 'SILENT'] as const satisfies readonly LogLevel[];

// An unset optional variable is sometimes exported as "", which means "not set".
const optional = <T extends z.ZodType>(schema: T) =>
  z.preprocess((value) => (typeof value === 'string' && value.trim() === '' ? undefined : value), schema.optional());

const required = (description: string) =>
  z.string({ error: 'must be set' }).trim().min(1, { error: 'must be set' }).describe(description);

/**
 * The KMS key that seals stored secrets (infra/secrets.ts passes its ARN): a key ARN, not
 * an alias, because a sealed value records the ARN GenerateDataKey answers with and is
 * opened only under that same key (secrets/kms-data-keys.ts).
 */
export const kmsKeyArn = z
  // Messages never say "secret": config errors are checked for echoed values by that word.
  .string({ error: 'must be set: the KMS key ARN that seals stored credentials (infra sets it)' })
  .trim()
  .regex(/^arn:aws[\w-]*:kms:[a-z0-9-]+:\d{12}:key\/[A-Za-z0-9-]+$/, { error: 'must be a KMS key ARN (arn:aws:kms:<region>:<account>:key/<key id>), not an alias' })
  .describe('the KMS key that seals the secrets the store keeps');

/** Shortest accepted metrics token: the function URL is public, so the token is all that guards /metrics. */
export const MIN_METRICS_TOKEN_LENGTH = 16;

/** "https://a.example, https://b.example:8443" → each entry must be a bare origin. */
const originList = z
  .string()
  .transform((value) => value.split(',').map((s) => s.trim()).filter(Boolean))
  .superRefine((origins, ctx) => {
    const bad = origins.filter((origin) => !isOrigin(origin)).length;
    // Counted, not quoted: messages never echo values.
    if (bad) ctx.addIssue({ code: 'custom', message: `${bad} of ${origins.length} entries not an origin (scheme://host[:port], no path)` });
  })
  // The form browsers send in the Origin header: lower-case host, no trailing slash.
  .transform((origins) => origins.map((origin) => new URL(origin).origin));

/** "staging.example.com, https://auth.example.com" → hosts or origins (the local runtime's SVC_DISCOVERY_ALLOWED_HOSTS). */
const hostList = z
  .string()
  .transform((value) => value.split(',').map((s) => s.trim()).filter(Boolean))
  .superRefine((hosts, ctx) => {
    const bad = hosts.filter((h) => !URL.canParse(/^https?:\/\//i.test(h) ? h : `http://${h}`)).length;
    if (bad) ctx.addIssue({ code: 'custom', message: `${bad} of ${hosts.length} entries not a host or an http(s) origin` });
  });

function isOrigin(value: string): boolean {
  try {
    const url = new URL(value);
    const bare = url.pathname === '/' && !url.search && !url.hash && !url.username && !url.password;
    return (url.protocol === 'https:' || url.protocol === 'http:') && bare && !value.includes('?') && !value.includes('#');
  } catch {
    return false;
  }
}

/**
 * What the operator chooses at deploy time. `infra/api.ts` passes each variable through
 * to the function only when it is set in the deploying shell, and checks them with this
 * schema first, so a bad value stops the deploy instead of failing every request.
 */
export const operatorEnvSchema = z.object({
  SVC_JWKS_URL: optional(
    z.url({ protocol: /^https$/, error: 'must be an https URL' }).describe('JWKS URL of an external identity provider'),
  ),
  SVC_JWT_ISSUER: optional(z.string().trim().describe('the `iss` of the external provider’s JWTs')),
  SVC_JWT_AUDIENCE: optional(z.string().trim().describe('the `aud` the external provider’s JWTs must carry')),
  SVC_CORS_ORIGINS: optional(originList.describe('comma-separated browser origins allowed to call the API')),
  SVC_LOG_LEVEL: optional(
    z.preprocess(
      (value) => (typeof value === 'string' ? value.trim().toUpperCase() : value),
      z.enum(logLevels, { error: `must be one of ${logLevels.join(', ')}` }),
    ).describe('log level of the structured logs'),
  ),
  SVC_METRICS_TOKEN: optional(
    z
      .string()
      .trim()
      .min(MIN_METRICS_TOKEN_LENGTH, { error: `must be at least ${MIN_METRICS_TOKEN_LENGTH} characters` })
      .describe('bearer token GET /metrics requires; /metrics is open when unset'),
  ),
  SVC_PUBLIC_URL: optional(PublicUrl),
  SVC_TRUSTED_PROXY_HOPS: optional(
    z.coerce.number({ error: 'must be a whole number of proxies' }).int({ error: 'must be a whole number of proxies' }).min(0, { error: 'must be 0 or more' }).max(10, { error: 'must be at most 10' })
      .describe('proxies of yours in front of the function URL (CloudFront, say) that append to X-Forwarded-For; 0 when unset: the address the function URL saw'),
  ),
  SVC_DISCOVERY_ALLOWED_HOSTS: optional(hostList.describe('comma-separated hosts or origins any project may crawl and audit besides its own app_url')),
  SVC_VISUAL_PROPOSED_RETENTION_DAYS: optional(
    z.coerce.number({ error: 'must be a number of days' }).min(0.001, { error: 'must be more than 0 days' }).max(3650, { error: 'must be at most 3650 days' })
      .describe('days a proposed visual image (a failed comparison\'s screenshot) is kept for accepting; 30 when unset'),
  ),
  SVC_RUN_ARTIFACT_RETENTION_DAYS: optional(
    z.coerce.number({ error: 'must be a number of days' }).min(0.001, { error: 'must be more than 0 days' }).max(36500, { error: 'must be at most 36500 days' })
      .describe('days run artifacts (traces, screenshots, comparison images) are kept; kept for good when unset'),
  ),
});

/** Variable names an operator may set when deploying; infra passes them through. */
export const operatorEnvVarNames = Object.keys(operatorEnvSchema.shape) as (keyof typeof operatorEnvSchema.shape)[];

/**
 * The external provider is described by its JWKS and its issuer together, or not at all.
 * Checked on the raw values, beside the schema, so every problem is reported at once.
 */
function pairingIssues(env: Record<string, string | undefined>): string[] {
  const set = (name: string) => (env[name]?.trim() ?? '') !== '';
  const issues: string[] = [];
  if (set('SVC_JWKS_URL') && !set('SVC_JWT_ISSUER')) issues.push('SVC_JWT_ISSUER: required when SVC_JWKS_URL is set');
  if (set('SVC_JWT_ISSUER') && !set('SVC_JWKS_URL')) issues.push('SVC_JWKS_URL: required when SVC_JWT_ISSUER is set');
  if (set('SVC_JWT_AUDIENCE') && !(set('SVC_JWKS_URL') && set('SVC_JWT_ISSUER'))) {
    issues.push('SVC_JWT_AUDIENCE: only applies to an external identity provider (SVC_JWKS_URL and SVC_JWT_ISSUER)');
  }
  return issues;
}

export const awsEnvSchema = operatorEnvSchema
  .extend({
    SVC_TABLE_NAME: required('DynamoDB single table name'),
    SVC_BUCKET_NAME: required('S3 bucket for artifacts'),
    // Optional so the function still serves the API where no bus is declared (events are
    // then checked and dropped, as in a local runtime without a bus).
    SVC_EVENT_BUS_NAME: optional(z.string().trim().describe('EventBridge bus the API publishes domain events to')),
    // Optional likewise: without a state machine the run graph routes answer NOT_CONFIGURED.
    SVC_STATE_MACHINE_ARN: optional(
      z
        .string()
        .trim()
        .regex(/^arn:[\w-]+:states:[\w-]+:\d{12}:stateMachine:[\w-]+$/, { error: 'must be a Step Functions state machine ARN' })
        .describe('the run graph state machine the API starts executions on'),
    ),
    // Optional: without the browser function, discovery and the quality audit answer NOT_CONFIGURED.
    SVC_BROWSER_FUNCTION_NAME: optional(z.string().trim().describe('the browser function (infra/browser.ts) for discovery crawls and quality audits')),
    // Required: svc never stores a secret in plaintext, so a function without its key does not start.
    SVC_KMS_KEY_ID: kmsKeyArn,
    AWS_REGION: required('set by the Lambda runtime'),
  });

/** Every variable the config reads; the infra test checks the function is given each. */
export const awsEnvVarNames = Object.keys(awsEnvSchema.shape) as (keyof typeof awsEnvSchema.shape)[];

export interface ExternalIdentityProvider {
  jwksUrl: string;
  issuer: string;
  audience?: string;
}

export interface AwsConfig {
  region: string;
  tableName: string;
  bucketName: string;
  logLevel: LogLevel;
  /** Browser origins allowed to call the API with credentials; none by default. */
  corsOrigins: string[];
  /** Accepted besides the built-in issuer, when configured. */
  externalIdp?: ExternalIdentityProvider;
  /** EventBridge bus for domain events; when absent, events are checked and dropped. */
  eventBusName?: string;
  /** Bearer token GET /metrics requires; open when absent. */
  metricsToken?: string;
  /** The run graph's Step Functions state machine; when absent, the run graph is not configured. */
  stateMachineArn?: string;
  /** Where people reach svc (commit statuses link to run reports there). */
  publicUrl?: string;
  /** Proxies in front of the function URL whose X-Forwarded-For entries are trusted (SVC_TRUSTED_PROXY_HOPS); 0: none. */
  trustedProxyHops: number;
  /** The KMS key (ARN) that seals stored secrets. */
  kmsKeyId: string;
  /** The browser function for discovery and audits; when absent, those routes are not configured. */
  browserFunctionName?: string;
  /** Hosts any project may crawl and audit besides its own (SVC_DISCOVERY_ALLOWED_HOSTS). */
  discoveryAllowedHosts: string[];
  /** Days the daily housekeeping keeps a proposed visual image (SVC_VISUAL_PROPOSED_RETENTION_DAYS). */
  visualProposedRetentionDays: number;
  /** Days the daily housekeeping keeps run artifacts (SVC_RUN_ARTIFACT_RETENTION_DAYS); absent: for good. */
  runArtifactRetentionDays?: number;
}

/** The environment does not describe a working deployment; `issues` names each variable. */
export class AwsConfigError extends Error {
  constructor(readonly issues: string[]) {
    super(`invalid Lambda configuration: ${issues.join('; ')}`);
    this.name = 'AwsConfigError';
  }
}

const issuesOf = (error: z.ZodError) =>
  error.issues.map((issue) => `${issue.path.join('.') || '(env)'}: ${issue.message}`);

/**
 * Checks only the operator's deploy-time variables (for `infra/api.ts`). Returns the
 * problems, each naming its variable and never its value; empty when all is well.
 */
export function operatorEnvIssues(env: Record<string, string | undefined>): string[] {
  const parsed = operatorEnvSchema.safeParse(env);
  return [...(parsed.success ? [] : issuesOf(parsed.error)), ...pairingIssues(env)];
}

/** Parses and validates the environment. Messages name variables, never their values. */
export function loadAwsConfig(env: Record<string, string | undefined>): AwsConfig {
  const parsed = awsEnvSchema.safeParse(env);
  const issues = [...(parsed.success ? [] : issuesOf(parsed.error)), ...pairingIssues(env)];
  if (!parsed.success || issues.length) throw new AwsConfigError(issues);
  const e = parsed.data;
  return {
    region: e.AWS_REGION,
    tableName: e.SVC_TABLE_NAME,
    bucketName: e.SVC_BUCKET_NAME,
    kmsKeyId: e.SVC_KMS_KEY_ID,
    logLevel: e.SVC_LOG_LEVEL ?? 'WARN',
    corsOrigins: e.SVC_CORS_ORIGINS ?? [],
    trustedProxyHops: e.SVC_TRUSTED_PROXY_HOPS ?? 0,
    discoveryAllowedHosts: e.SVC_DISCOVERY_ALLOWED_HOSTS ?? [],
    visualProposedRetentionDays: e.SVC_VISUAL_PROPOSED_RETENTION_DAYS ?? 30,
    ...(e.SVC_RUN_ARTIFACT_RETENTION_DAYS !== undefined ? { runArtifactRetentionDays: e.SVC_RUN_ARTIFACT_RETENTION_DAYS } : {}),
    ...(e.SVC_BROWSER_FUNCTION_NAME ? { browserFunctionName: e.SVC_BROWSER_FUNCTION_NAME } : {}),
    ...(e.SVC_EVENT_BUS_NAME ? { eventBusName: e.SVC_EVENT_BUS_NAME } : {}),
    ...(e.SVC_METRICS_TOKEN ? { metricsToken: e.SVC_METRICS_TOKEN } : {}),
    ...(e.SVC_STATE_MACHINE_ARN ? { stateMachineArn: e.SVC_STATE_MACHINE_ARN } : {}),
    ...(e.SVC_PUBLIC_URL ? { publicUrl: e.SVC_PUBLIC_URL } : {}),
    ...(e.SVC_JWKS_URL && e.SVC_JWT_ISSUER
      ? {
          externalIdp: {
            jwksUrl: e.SVC_JWKS_URL,
            issuer: e.SVC_JWT_ISSUER,
            ...(e.SVC_JWT_AUDIENCE ? { audience: e.SVC_JWT_AUDIENCE } : {}),
          },
        }
      : {}),
  };
}
