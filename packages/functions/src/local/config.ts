import { z } from 'zod';
import { join, resolve } from 'node:path';
import { parseAnalyzeRoots } from '../intelligence/read-repository.ts';
import { PublicUrl } from '../shared/public-url.ts';

/**
 * The local runtime's configuration, parsed once at the edge: defaults → environment →
 * flags, validated with zod. Libraries never read process.env themselves.
 */
export const LocalConfigSchema = z.object({
  port: z.coerce.number().int().min(0).max(65535).default(4600).describe('Port on 127.0.0.1 (SVC_PORT, --port)'),
  host: z.enum(['127.0.0.1', 'localhost', '::1']).default('127.0.0.1').describe('Loopback address to bind (SVC_HOST, --host)'),
  dataDir: z.string().min(1).default('.svc-data').describe('Folder for the store and artifacts (SVC_DATA_DIR, --data-dir)'),
  secretKeyFile: z.string().min(1).optional().describe('Key file that seals stored secrets; default <data folder>/secret-key, created on first start (SVC_SECRET_KEY_FILE)'),
  logLevel: z.enum(['DEBUG', 'INFO', 'WARN', 'ERROR', 'SILENT']).default('WARN').describe('Log level (SVC_LOG_LEVEL)'),
  corsOrigins: z.string().default('').describe('Comma-separated browser origins allowed to call the API (SVC_CORS_ORIGINS)'),
  rateLimitPerMinute: z.coerce.number().int().min(1).default(1200).describe('Requests per minute per caller (SVC_RATE_LIMIT)'),
  authRateLimitPerMinute: z.coerce.number().int().min(1).default(30).describe('Sign-up/login/refresh attempts per minute per IP (SVC_AUTH_RATE_LIMIT)'),
  loginFailuresPerEmail: z.coerce.number().int().min(1).default(10).describe('Failed sign-ins per email per 15 minutes, from any address, before that email must wait (SVC_LOGIN_FAILURE_LIMIT)'),
  trustedProxyHops: z.coerce.number().int().min(0).max(10).default(0).describe('Proxies in front of svc (a tunnel, a reverse proxy) that append to X-Forwarded-For; the client address is read that many entries from its right. 0: X-Forwarded-For is ignored (SVC_TRUSTED_PROXY_HOPS)'),
  maxBodyBytes: z.coerce.number().int().min(1024).max(100 * 1024 * 1024).default(100 * 1024 * 1024).describe('Largest request body in bytes, at most 100 MB (SVC_MAX_BODY_BYTES)'),
  chromiumPath: z.string().optional().describe('Chromium for browser steps instead of the bundled one (SVC_CHROMIUM_PATH)'),
  jwksUrl: z.url().optional().describe('JWKS of an external identity provider (SVC_JWKS_URL)'),
  jwtIssuer: z.string().optional().describe('Expected iss of the external provider (SVC_JWT_ISSUER)'),
  jwtAudience: z.string().optional().describe('Expected aud of the external provider (SVC_JWT_AUDIENCE)'),
  publicUrl: PublicUrl.optional().describe('Where people reach this svc, e.g. https://svc.example.com through a tunnel or proxy: commit statuses and slash-command run outcomes link to run reports there (SVC_PUBLIC_URL; none: no link)'),
  scheduleTickMs: z.coerce.number().int().min(100).max(3_600_000).default(30_000).describe('How often due scheduled runs are looked for, in ms (SVC_SCHEDULE_TICK_MS; default 30 s)'),
  housekeepingIntervalMs: z.coerce.number().int().min(100).max(7 * 24 * 3_600_000).default(6 * 3_600_000).describe('How often old visual images and run artifacts are swept, in ms; the first sweep a minute after start (SVC_HOUSEKEEPING_INTERVAL_MS; default 6 h)'),
  visualProposedRetentionDays: z.coerce.number().min(0.001).max(3650).default(30).describe('Days a proposed visual image (a failed comparison\'s screenshot) is kept for accepting (SVC_VISUAL_PROPOSED_RETENTION_DAYS; default 30)'),
  runArtifactRetentionDays: z.coerce.number().min(0.001).max(36500).optional().describe('Days run artifacts (traces, screenshots, comparison images) are kept (SVC_RUN_ARTIFACT_RETENTION_DAYS; unset: kept for good)'),
  // Absolute, like dataDir: a relative root means the folder where svc was started, not wherever a later read runs from.
  analyzeRoots: z
    .string()
    .default('')
    .transform((value) => parseAnalyzeRoots(value).map((root) => resolve(root)))
    .describe('Folders POST /api/analyze and a run\'s analyze_code may read, separated by commas or the path delimiter (SVC_ANALYZE_ROOTS)'),
});

export type LocalConfig = z.output<typeof LocalConfigSchema> & { dataDir: string; secretKeyFile: string };

export function parseLocalConfig(env: Record<string, string | undefined>, flags: Partial<Record<keyof z.input<typeof LocalConfigSchema>, unknown>> = {}): LocalConfig {
  const fromEnv = {
    port: env.SVC_PORT,
    host: env.SVC_HOST,
    dataDir: env.SVC_DATA_DIR,
    secretKeyFile: env.SVC_SECRET_KEY_FILE,
    logLevel: env.SVC_LOG_LEVEL,
    corsOrigins: env.SVC_CORS_ORIGINS,
    rateLimitPerMinute: env.SVC_RATE_LIMIT,
    authRateLimitPerMinute: env.SVC_AUTH_RATE_LIMIT,
    maxBodyBytes: env.SVC_MAX_BODY_BYTES,
    loginFailuresPerEmail: env.SVC_LOGIN_FAILURE_LIMIT,
    trustedProxyHops: env.SVC_TRUSTED_PROXY_HOPS,
    chromiumPath: env.SVC_CHROMIUM_PATH,
    jwksUrl: env.SVC_JWKS_URL,
    jwtIssuer: env.SVC_JWT_ISSUER,
    jwtAudience: env.SVC_JWT_AUDIENCE,
    analyzeRoots: env.SVC_ANALYZE_ROOTS,
    scheduleTickMs: env.SVC_SCHEDULE_TICK_MS,
    housekeepingIntervalMs: env.SVC_HOUSEKEEPING_INTERVAL_MS,
    visualProposedRetentionDays: env.SVC_VISUAL_PROPOSED_RETENTION_DAYS,
    runArtifactRetentionDays: env.SVC_RUN_ARTIFACT_RETENTION_DAYS,
    publicUrl: env.SVC_PUBLIC_URL,
  };
  // Unset values drop out before merging, so an absent flag never hides the environment.
  const given = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== ''));
  const merged = { ...given(fromEnv), ...given(flags) };
  const result = LocalConfigSchema.safeParse(merged);
  if (!result.success) {
    const lines = result.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new Error(`invalid configuration:\n${lines.join('\n')}`);
  }
  if ((result.data.jwksUrl && !result.data.jwtIssuer) || (!result.data.jwksUrl && result.data.jwtIssuer)) {
    throw new Error('invalid configuration:\n  SVC_JWKS_URL and SVC_JWT_ISSUER go together');
  }
  const dataDir = resolve(result.data.dataDir);
  return { ...result.data, dataDir, secretKeyFile: resolve(result.data.secretKeyFile ?? join(dataDir, 'secret-key')) };
}
