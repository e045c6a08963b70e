import { z } from 'zod';

/**
 * Configuration of the Lambda entry points, parsed once from the environment that
 * `infra/api.ts` sets (AWS_REGION comes from the Lambda runtime). Nothing below the
 * entry point reads `process.env`; it receives an `AwsConfig`.
 */

// An unset optional variable is sometimes exported as "", which means "not set".
const optional = <T extends z.ZodType>(schema: T) =>
  z.preprocess((value) => (value === '' ? undefined : value), schema.optional());

const required = (description: string) => z.string().trim().min(1).describe(description);

export const awsEnvSchema = z.object({
  SVC_TABLE_NAME: required('DynamoDB single table name'),
  SVC_BUCKET_NAME: required('S3 bucket for artifacts'),
  SVC_JWT_ISSUER: required('the `iss` of the API’s JWTs'),
  SVC_JWT_AUDIENCE: required('the `aud` of the API’s JWTs'),
  SVC_JWKS_URL: optional(
    z.url({ protocol: /^https$/, error: 'must be an https URL' }).describe('JWKS URL of an external identity provider'),
  ),
  AWS_REGION: required('set by the Lambda runtime'),
});

/** Variable names the config reads; the infra test checks the function sets them. */
export const awsEnvVarNames = Object.keys(awsEnvSchema.shape) as (keyof typeof awsEnvSchema.shape)[];

export interface AwsConfig {
  region: string;
  tableName: string;
  bucketName: string;
  jwt: {
    issuer: string;
    audience: string;
    jwksUrl?: string;
  };
}

/** The environment does not describe a working deployment; `issues` names each variable. */
export class AwsConfigError extends Error {
  constructor(readonly issues: string[]) {
    super(`invalid Lambda configuration: ${issues.join('; ')}`);
    this.name = 'AwsConfigError';
  }
}

/** Parses and validates the environment. Messages name variables, never their values. */
export function loadAwsConfig(env: Record<string, string | undefined>): AwsConfig {
  const parsed = awsEnvSchema.safeParse(env);
  if (!parsed.success) {
    throw new AwsConfigError(
      parsed.error.issues.map((issue) => `${issue.path.join('.') || '(env)'}: ${issue.message}`),
    );
  }
  const e = parsed.data;
  return {
    region: e.AWS_REGION,
    tableName: e.SVC_TABLE_NAME,
    bucketName: e.SVC_BUCKET_NAME,
    jwt: {
      issuer: e.SVC_JWT_ISSUER,
      audience: e.SVC_JWT_AUDIENCE,
      ...(e.SVC_JWKS_URL ? { jwksUrl: e.SVC_JWKS_URL } : {}),
    },
  };
}
