import { artifacts, table } from './storage.ts';

/**
 * JWT settings are deploy-time inputs, read from the environment of whoever runs
 * `sst deploy` (see docs/deploy.md). The API can neither issue nor verify tokens
 * without issuer and audience, so the deploy stops here instead of shipping that.
 */
function deployEnv(name: string): string {
  const value = process.env[name]?.trim();
  if (!value) {
    throw new Error(`${name} must be set when deploying svc (see docs/deploy.md)`);
  }
  return value;
}

const jwksUrl = process.env.SVC_JWKS_URL?.trim();

/**
 * The HTTP API: the same Hono app as the local runtime, behind a Lambda function URL
 * with response streaming so SSE run streams reach the client as they are produced.
 */
export const api = new sst.aws.Function('Api', {
  handler: 'packages/functions/src/aws/api-handler.handler',
  runtime: 'nodejs22.x',
  memory: '1024 MB',
  // A streamed response lives as long as the invocation; 15 minutes is Lambda's ceiling.
  timeout: '15 minutes',
  streaming: true,
  // CORS is the app's own first middleware; a second layer at the URL would answer
  // preflights with rules the app never sees. Authentication is also the app's (JWT).
  url: { cors: false },
  link: [table, artifacts],
  environment: {
    SVC_TABLE_NAME: table.name,
    SVC_BUCKET_NAME: artifacts.name,
    SVC_JWT_ISSUER: deployEnv('SVC_JWT_ISSUER'),
    SVC_JWT_AUDIENCE: deployEnv('SVC_JWT_AUDIENCE'),
    ...(jwksUrl ? { SVC_JWKS_URL: jwksUrl } : {}),
    POWERTOOLS_SERVICE_NAME: 'svc-api',
  },
});
