/**
 * Offline checks of the SST app: sst.config.ts and infra/ are evaluated against
 * recording doubles of the SST globals (./sst-doubles.ts), which capture every declared
 * component and its args. No AWS account, no SST binary.
 */
import { existsSync } from 'node:fs';
import { PassThrough } from 'node:stream';
import { build, type BuildFailure, type BuildResult } from 'esbuild';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { globalIndexNames, keyAttributeNames, tableSchema } from '../../infra/table-schema.ts';
import { evaluateSstApp as evaluate, fromRoot, functionUrlEvent, load, operatorVariables, resolvedEnvironment } from './sst-doubles.ts';

const appFile = fromRoot('packages/functions/src/api/app.ts');
const tableAdapterFile = fromRoot('packages/functions/src/aws/dynamodb-table.ts');

/** Every optional deploy-time setting, with valid values. */
const allSettings = {
  SVC_JWKS_URL: 'https://idp.example.com/.well-known/jwks.json',
  SVC_JWT_ISSUER: 'https://idp.example.com/',
  SVC_JWT_AUDIENCE: 'svc-api',
  SVC_CORS_ORIGINS: 'https://app.example.com, https://admin.example.com',
  SVC_LOG_LEVEL: 'INFO',
};

afterEach(() => {
  vi.unstubAllGlobals();
  vi.unstubAllEnvs();
});

// ---------------------------------------------------------------------------------------

describe('sst.config.ts app()', () => {
  it.each(['prod', 'production'])('retains data and protects the %s stage', async (stage) => {
    const { app } = await evaluate(stage);
    expect(app).toMatchObject({ name: 'svc', home: 'aws', removal: 'retain', protect: true });
  });

  it('removes everything on other stages', async () => {
    const { app } = await evaluate('dev');
    expect(app).toMatchObject({ name: 'svc', home: 'aws', removal: 'remove', protect: false });
  });
});

describe('sst.config.ts run()', () => {
  it('declares exactly the table, the artifacts bucket and the API function', async () => {
    const { declared } = await evaluate();
    expect(declared.map((d) => `${d.type} ${d.name}`).sort()).toEqual([
      'sst.aws.Bucket Artifacts',
      'sst.aws.Dynamo Table',
      'sst.aws.Function Api',
    ]);
  });

  it('returns the API URL and the storage names as outputs', async () => {
    const { outputs, only } = await evaluate();
    expect(outputs).toEqual({
      api: only('sst.aws.Function').instance.url,
      table: only('sst.aws.Dynamo').instance.name,
      artifactsBucket: only('sst.aws.Bucket').instance.name,
    });
  });

  it('deploys with no settings in the shell: the API issues its own tokens', async () => {
    const { args } = (await evaluate('test', {})).only('sst.aws.Function');
    for (const name of operatorVariables) expect(args.environment, name).not.toHaveProperty(name);
  });

  it.each([
    ['an http JWKS URL', { SVC_JWKS_URL: 'http://idp.example.com/jwks', SVC_JWT_ISSUER: 'https://idp.example.com/' }, /SVC_JWKS_URL: must be an https URL/],
    ['a JWKS URL without its issuer', { SVC_JWKS_URL: 'https://idp.example.com/jwks' }, /SVC_JWT_ISSUER: required when SVC_JWKS_URL is set/],
    ['an issuer without its JWKS URL', { SVC_JWT_ISSUER: 'https://idp.example.com/' }, /SVC_JWKS_URL: required when SVC_JWT_ISSUER is set/],
    ['an audience without a provider', { SVC_JWT_AUDIENCE: 'svc-api' }, /SVC_JWT_AUDIENCE: only applies to an external identity provider/],
    ['a CORS entry that is not an origin', { SVC_CORS_ORIGINS: 'https://app.example.com/path' }, /SVC_CORS_ORIGINS: 1 of 1 entries not an origin/],
    ['an unknown log level', { SVC_LOG_LEVEL: 'LOUD' }, /SVC_LOG_LEVEL: must be one of DEBUG, INFO, WARN, ERROR, SILENT/],
  ])('stops the deploy on %s, naming the variable', async (_, env, message) => {
    const failure = await evaluate('test', env).then(
      () => undefined,
      (error: Error) => error,
    );
    expect(failure?.message).toMatch(/^invalid deploy settings \(see docs\/deploy\.md\): /);
    expect(failure?.message).toMatch(message);
    expect(failure?.message).not.toContain('idp.example.com');
  });
});

describe('table', () => {
  it('uses the reserved attribute names of the Table port', () => {
    expect(keyAttributeNames).toEqual(['pk', 'sk', 'gsi1pk', 'gsi1sk', 'gsi2pk', 'gsi2sk']);
    expect(globalIndexNames).toEqual(['gsi1', 'gsi2']);
    expect(tableSchema.ttlAttribute).toBe('expiresAt');
  });

  it('is declared with the keys, GSIs and TTL of infra/table-schema.ts', async () => {
    const { args } = (await evaluate()).only('sst.aws.Dynamo');
    expect(args).toEqual({
      fields: { pk: 'string', sk: 'string', gsi1pk: 'string', gsi1sk: 'string', gsi2pk: 'string', gsi2sk: 'string' },
      primaryIndex: { hashKey: 'pk', rangeKey: 'sk' },
      globalIndexes: {
        gsi1: { hashKey: 'gsi1pk', rangeKey: 'gsi1sk' },
        gsi2: { hashKey: 'gsi2pk', rangeKey: 'gsi2sk' },
      },
      ttl: 'expiresAt',
    });
    expect(args.primaryIndex).toEqual(tableSchema.primaryIndex);
    expect(args.globalIndexes).toEqual(tableSchema.globalIndexes);
    expect(args.ttl).toBe(tableSchema.ttlAttribute);
    expect(Object.keys(args.fields)).toEqual(keyAttributeNames);
  });

  // Needs `tableDefinition(name)` exported from packages/functions/src/aws/dynamodb-table.ts:
  // the CreateTable input the adapter uses against DynamoDB Local.
  it('matches the table the DynamoDB adapter creates (tableDefinition)', async () => {
    expect(existsSync(tableAdapterFile), `${tableAdapterFile} exists`).toBe(true);
    const adapter = await load('packages/functions/src/aws/dynamodb-table.ts');
    expect(typeof adapter.tableDefinition, 'dynamodb-table.ts exports tableDefinition(name)').toBe('function');
    const def = adapter.tableDefinition('svc-test');
    const { args } = (await evaluate()).only('sst.aws.Dynamo');
    expect(def.TableName).toBe('svc-test');
    expect(describeCreateTable(def)).toEqual(describeSstTable(args));
  });
});

describe('API function', () => {
  it('runs the streaming Node 22 handler behind a function URL with CORS left to the app', async () => {
    const { args } = (await evaluate()).only('sst.aws.Function');
    expect(args).toMatchObject({
      handler: 'packages/functions/src/aws/api-handler.handler',
      runtime: 'nodejs22.x',
      streaming: true,
      url: { cors: false },
      memory: '1024 MB',
      timeout: '15 minutes',
    });
  });

  it('is linked to the table and the artifacts bucket, and told their names', async () => {
    const { only } = await evaluate();
    const { args } = only('sst.aws.Function');
    const table = only('sst.aws.Dynamo').instance;
    const bucket = only('sst.aws.Bucket').instance;
    expect(args.link).toHaveLength(2);
    expect(args.link).toContain(table);
    expect(args.link).toContain(bucket);
    expect(args.environment.SVC_TABLE_NAME).toBe(table.name);
    expect(args.environment.SVC_BUCKET_NAME).toBe(bucket.name);
  });

  it('passes each deploy-time setting through only when it is set', async () => {
    const none = (await evaluate('test', { SVC_JWKS_URL: '', SVC_JWT_ISSUER: '  ' })).only('sst.aws.Function').args.environment;
    for (const name of operatorVariables) expect(none, name).not.toHaveProperty(name);

    const some = (await evaluate('test', { SVC_LOG_LEVEL: 'debug', SVC_CORS_ORIGINS: ' https://app.example.com ' })).only('sst.aws.Function')
      .args.environment;
    expect(some).toMatchObject({ SVC_LOG_LEVEL: 'debug', SVC_CORS_ORIGINS: 'https://app.example.com' });
    expect(some).not.toHaveProperty('SVC_JWKS_URL');

    const all = (await evaluate('test', allSettings)).only('sst.aws.Function').args.environment;
    expect(all).toMatchObject({ ...allSettings, SVC_CORS_ORIGINS: 'https://app.example.com, https://admin.example.com' });
  });

  it('sets every variable the Lambda config reads, and the config accepts them', async () => {
    const { args } = (await evaluate('test', allSettings)).only('sst.aws.Function');
    const { awsEnvVarNames, loadAwsConfig } = await load('packages/functions/src/aws/config.ts');
    const runtimeProvided = ['AWS_REGION'];
    for (const name of awsEnvVarNames as string[]) {
      if (!runtimeProvided.includes(name)) expect(args.environment, name).toHaveProperty(name);
    }
    expect(loadAwsConfig({ ...resolvedEnvironment(args.environment), AWS_REGION: 'eu-west-1' })).toEqual({
      region: 'eu-west-1',
      tableName: '{Table.name}',
      bucketName: '{Artifacts.name}',
      logLevel: 'INFO',
      corsOrigins: ['https://app.example.com', 'https://admin.example.com'],
      externalIdp: {
        jwksUrl: 'https://idp.example.com/.well-known/jwks.json',
        issuer: 'https://idp.example.com/',
        audience: 'svc-api',
      },
    });
  });

  it('gives the function a working config with no settings at all', async () => {
    const { args } = (await evaluate('test', {})).only('sst.aws.Function');
    const { loadAwsConfig } = await load('packages/functions/src/aws/config.ts');
    expect(loadAwsConfig({ ...resolvedEnvironment(args.environment), AWS_REGION: 'eu-west-1' })).toEqual({
      region: 'eu-west-1',
      tableName: '{Table.name}',
      bucketName: '{Artifacts.name}',
      logLevel: 'WARN',
      corsOrigins: [],
    });
  });

  it('ships the dashboard files where the bundled @svc/web looks for them', async () => {
    const { args } = (await evaluate()).only('sst.aws.Function');
    expect(args.copyFiles).toEqual([{ from: 'packages/web/public', to: 'packages/functions/src/public' }]);
    expect(existsSync(fromRoot(args.copyFiles[0].from, 'index.html'))).toBe(true);
    // The bundle is written at the handler's path; @svc/web resolves `../public` from it.
    const handlerDir = (args.handler as string).slice(0, (args.handler as string).lastIndexOf('/'));
    expect(new URL('../public', `file:///task/${handlerDir}/api-handler.mjs`).pathname).toBe(`/task/${args.copyFiles[0].to}`);
  });

  it('names a handler file that exists and exports `handler`', async () => {
    const { args } = (await evaluate()).only('sst.aws.Function');
    const handler: string = args.handler;
    const dot = handler.lastIndexOf('.');
    const file = fromRoot(`${handler.slice(0, dot)}.ts`);
    expect(existsSync(file), file).toBe(true);
    // Export list without resolving imports, so this holds before the app is written.
    const result = await build({
      entryPoints: [file],
      bundle: false,
      write: false,
      metafile: true,
      format: 'esm',
      platform: 'node',
      logLevel: 'silent',
    });
    const [output] = Object.values(result.metafile.outputs);
    expect(output!.exports).toContain(handler.slice(dot + 1));
  });
});

describe('Lambda config', () => {
  const minimal = {
    SVC_TABLE_NAME: 'svc-table',
    SVC_BUCKET_NAME: 'svc-artifacts',
    AWS_REGION: 'eu-west-1',
  };
  const loadConfig = async () => (await load('packages/functions/src/aws/config.ts')).loadAwsConfig as (env: Record<string, string | undefined>) => any;
  const failureOf = (fn: () => unknown) => {
    try {
      fn();
    } catch (error) {
      return error as Error & { issues?: string[] };
    }
    throw new Error('expected the config to be refused');
  };

  it('needs only the table, the bucket and the region', async () => {
    expect((await loadConfig())(minimal)).toEqual({
      region: 'eu-west-1',
      tableName: 'svc-table',
      bucketName: 'svc-artifacts',
      logLevel: 'WARN',
      corsOrigins: [],
    });
  });

  it('runs the built-in issuer with a fixed issuer and audience', async () => {
    const { builtInIssuer } = await load('packages/functions/src/aws/config.ts');
    expect(builtInIssuer).toEqual({ issuer: 'urn:svc:api', audience: 'svc' });
  });

  it('describes an external identity provider by JWKS and issuer, the audience optional', async () => {
    const load = await loadConfig();
    const jwks = { SVC_JWKS_URL: 'https://idp.example.com/jwks', SVC_JWT_ISSUER: 'https://idp.example.com/' };
    expect(load({ ...minimal, ...jwks }).externalIdp).toEqual({ jwksUrl: jwks.SVC_JWKS_URL, issuer: jwks.SVC_JWT_ISSUER });
    expect(load({ ...minimal, ...jwks, SVC_JWT_AUDIENCE: 'svc-api' }).externalIdp).toEqual({
      jwksUrl: jwks.SVC_JWKS_URL,
      issuer: jwks.SVC_JWT_ISSUER,
      audience: 'svc-api',
    });
  });

  it('parses CORS origins and the log level', async () => {
    const config = (await loadConfig())({ ...minimal, SVC_CORS_ORIGINS: 'https://App.example.com/, http://localhost:5173,,', SVC_LOG_LEVEL: 'debug' });
    expect(config.corsOrigins).toEqual(['https://app.example.com', 'http://localhost:5173']);
    expect(config.logLevel).toBe('DEBUG');
  });

  it('names every invalid variable and never echoes a value', async () => {
    const load = await loadConfig();
    const env = {
      ...minimal,
      SVC_TABLE_NAME: '  ',
      SVC_BUCKET_NAME: undefined,
      SVC_JWKS_URL: 'http://secret-host.example/jwks',
      SVC_JWT_AUDIENCE: 'secret-audience',
      SVC_CORS_ORIGINS: 'https://ok.example, secret-origin',
      SVC_LOG_LEVEL: 'secret-level',
    };
    const error = failureOf(() => load(env));
    expect(error.name).toBe('AwsConfigError');
    for (const name of ['SVC_TABLE_NAME', 'SVC_BUCKET_NAME', 'SVC_JWT_ISSUER', 'SVC_CORS_ORIGINS', 'SVC_LOG_LEVEL']) {
      expect(error.message).toContain(`${name}: `);
    }
    expect(error.message).toMatch(/SVC_JWKS_URL: must be an https URL/);
    expect(error.message).toMatch(/SVC_CORS_ORIGINS: 1 of 2 entries not an origin/);
    expect(error.message).not.toMatch(/secret/);
    expect(error.issues!.length).toBeGreaterThanOrEqual(6);
  });

  it('treats empty or blank optional variables as unset', async () => {
    const config = (await loadConfig())({
      ...minimal,
      SVC_JWKS_URL: '',
      SVC_JWT_ISSUER: ' ',
      SVC_JWT_AUDIENCE: '',
      SVC_CORS_ORIGINS: '',
      SVC_LOG_LEVEL: '',
    });
    expect(config).not.toHaveProperty('externalIdp');
    expect(config.corsOrigins).toEqual([]);
    expect(config.logLevel).toBe('WARN');
  });
});

describe('Lambda entry', () => {
  const entry = fromRoot('packages/functions/src/aws/api-handler.ts');

  // Needs packages/functions/src/api/app.ts (createApp) and aws/dynamodb-table.ts.
  it.skipIf(!existsSync(appFile))('bundles for Node 22 ESM with esbuild', async () => {
    const result = await build({
      entryPoints: [entry],
      bundle: true,
      platform: 'node',
      target: 'node22',
      format: 'esm',
      write: false,
      metafile: true,
      external: ['@aws-sdk/*'],
      logLevel: 'silent',
    }).catch((failure: BuildFailure) => failure);
    // A failed build rejects with the same `errors`; listing them names the broken import.
    expect(result.errors.map((m) => `${m.location?.file ?? '?'}:${m.location?.line ?? '?'} ${m.text}`)).toEqual([]);
    const [output] = Object.values((result as BuildResult<{ metafile: true }>).metafile.outputs);
    expect(output!.exports).toContain('handler');
  });

  // The Lambda runtime's streaming API is the edge of the world here: `awslambda` is
  // doubled with its documented shape (streamifyResponse, HttpResponseStream.from).
  it.skipIf(!existsSync(appFile))('answers with the error body when the environment is incomplete', async () => {
    vi.resetModules();
    vi.stubGlobal('awslambda', {
      streamifyResponse: (fn: unknown) => fn,
      HttpResponseStream: {
        from: (stream: PassThrough & { metadata?: unknown }, metadata: unknown) => {
          stream.metadata = metadata;
          return stream;
        },
      },
    });
    for (const name of ['SVC_TABLE_NAME', 'SVC_BUCKET_NAME', ...operatorVariables]) vi.stubEnv(name, '');
    vi.stubEnv('SVC_JWKS_URL', 'http://idp.example.com/jwks');
    vi.stubEnv('AWS_REGION', 'eu-west-1');
    const { handler } = await load('packages/functions/src/aws/api-handler.ts');

    const stream: PassThrough & { metadata?: any } = new PassThrough();
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    await handler(functionUrlEvent('GET', '/api/v1/health'), stream, {});
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));

    expect(stream.metadata.statusCode).toBe(500);
    expect(body.error.code).toBe('INTERNAL');
    expect(body.error.message).toContain('SVC_TABLE_NAME');
    expect(body.error.message).toContain('SVC_BUCKET_NAME');
    expect(body.error.message).toContain('SVC_JWKS_URL: must be an https URL');
  });
});

// ---------------------------------------------------------------------------------------
// Normalised table descriptions, so SST's args and the SDK's CreateTable input compare.

interface TableShape {
  attributes: Record<string, string>;
  primaryKey: { hash?: string; range?: string };
  globalIndexes: Record<string, { hash?: string; range?: string; projection: string }>;
  billing: string;
}

function describeSstTable(args: any): TableShape {
  const typeCode = { string: 'S', number: 'N', binary: 'B' } as Record<string, string>;
  return {
    attributes: Object.fromEntries(Object.entries(args.fields).map(([k, v]) => [k, typeCode[v as string]!])),
    primaryKey: { hash: args.primaryIndex.hashKey, range: args.primaryIndex.rangeKey },
    // SST's Dynamo projects ALL attributes into every GSI and bills on demand.
    globalIndexes: Object.fromEntries(
      Object.entries(args.globalIndexes ?? {}).map(([name, ix]: [string, any]) => [
        name,
        { hash: ix.hashKey, range: ix.rangeKey, projection: 'ALL' },
      ]),
    ),
    billing: 'PAY_PER_REQUEST',
  };
}

function describeCreateTable(def: any): TableShape {
  const keys = (schema: { AttributeName: string; KeyType: string }[]) => ({
    hash: schema.find((k) => k.KeyType === 'HASH')?.AttributeName,
    range: schema.find((k) => k.KeyType === 'RANGE')?.AttributeName,
  });
  return {
    attributes: Object.fromEntries(
      def.AttributeDefinitions.map((a: { AttributeName: string; AttributeType: string }) => [
        a.AttributeName,
        a.AttributeType,
      ]),
    ),
    primaryKey: keys(def.KeySchema),
    globalIndexes: Object.fromEntries(
      (def.GlobalSecondaryIndexes ?? []).map((ix: any) => [
        ix.IndexName,
        { ...keys(ix.KeySchema), projection: ix.Projection?.ProjectionType },
      ]),
    ),
    billing: def.BillingMode ?? 'PROVISIONED',
  };
}
