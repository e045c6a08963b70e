/**
 * Offline checks of the SST app: sst.config.ts and infra/ are evaluated against
 * recording doubles of the SST globals ($config, $app, sst.aws.*), which capture every
 * declared component and its args. No AWS account, no SST binary.
 *
 * Modules are imported through computed paths so the type checker does not pull in
 * files that only type-check with SST's generated .sst/platform declarations.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { build, type BuildFailure, type BuildResult } from 'esbuild';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { globalIndexNames, keyAttributeNames, tableSchema } from '../../infra/table-schema.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const fromRoot = (...parts: string[]) => path.join(root, ...parts);
const load = (file: string): Promise<any> => import(fromRoot(file));

const appFile = fromRoot('packages/functions/src/api/app.ts');
const tableAdapterFile = fromRoot('packages/functions/src/aws/dynamodb-table.ts');

// ---------------------------------------------------------------------------------------
// Recording doubles of the SST globals.

/** Stands in for a Pulumi Output: identity is what the tests compare. */
class FakeOutput {
  constructor(readonly ref: string) {}
  toString(): string {
    return `{${this.ref}}`;
  }
}

interface Declared {
  type: string;
  name: string;
  args: any;
  instance: any;
}

function installSstGlobals(stage: string) {
  const declared: Declared[] = [];
  const component = (type: string, outputs: string[]) =>
    class {
      constructor(name: string, args: unknown = {}) {
        for (const attr of outputs) {
          Object.defineProperty(this, attr, { value: new FakeOutput(`${name}.${attr}`) });
        }
        declared.push({ type, name, args, instance: this });
      }
    };
  vi.stubGlobal('$config', (config: unknown) => config);
  vi.stubGlobal('$app', { name: 'svc', stage });
  vi.stubGlobal('$dev', false);
  vi.stubGlobal('$interpolate', (parts: TemplateStringsArray, ...values: unknown[]) =>
    new FakeOutput(parts.reduce((acc, part, i) => acc + part + (i < values.length ? String(values[i]) : ''), '')),
  );
  vi.stubGlobal('sst', {
    aws: {
      Dynamo: component('sst.aws.Dynamo', ['name', 'arn']),
      Bucket: component('sst.aws.Bucket', ['name', 'arn']),
      Function: component('sst.aws.Function', ['name', 'arn', 'url']),
    },
  });
  return declared;
}

const deployEnv = {
  SVC_JWT_ISSUER: 'https://idp.example.com/',
  SVC_JWT_AUDIENCE: 'svc-api',
  SVC_JWKS_URL: '',
};

/** Evaluates sst.config.ts as `sst deploy --stage <stage>` would, from a clean module graph. */
async function evaluate(stage = 'test', env: Record<string, string> = deployEnv) {
  vi.resetModules();
  const declared = installSstGlobals(stage);
  for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
  const config = (await load('sst.config.ts')).default;
  const app = config.app({ stage });
  const outputs = await config.run();
  const only = (type: string) => {
    const found = declared.filter((d) => d.type === type);
    expect(found, `exactly one ${type}`).toHaveLength(1);
    return found[0]!;
  };
  return { app, outputs, declared, only };
}

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

  it('stops the deploy with a clear error when the JWT issuer is not given', async () => {
    await expect(evaluate('test', { SVC_JWT_ISSUER: '', SVC_JWT_AUDIENCE: 'svc-api' })).rejects.toThrow(
      /SVC_JWT_ISSUER must be set/,
    );
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

  it('passes the deploy-time JWT settings through, and the JWKS URL only when given', async () => {
    const without = (await evaluate()).only('sst.aws.Function').args.environment;
    expect(without).toMatchObject({ SVC_JWT_ISSUER: 'https://idp.example.com/', SVC_JWT_AUDIENCE: 'svc-api' });
    expect(without).not.toHaveProperty('SVC_JWKS_URL');

    const jwks = 'https://idp.example.com/.well-known/jwks.json';
    const withJwks = (await evaluate('test', { ...deployEnv, SVC_JWKS_URL: jwks })).only('sst.aws.Function');
    expect(withJwks.args.environment.SVC_JWKS_URL).toBe(jwks);
  });

  it('sets every variable the Lambda config reads, and the config accepts them', async () => {
    const { args } = (await evaluate('test', {
      ...deployEnv,
      SVC_JWKS_URL: 'https://idp.example.com/jwks',
    })).only('sst.aws.Function');
    const { awsEnvVarNames, loadAwsConfig } = await load('packages/functions/src/aws/config.ts');
    const runtimeProvided = ['AWS_REGION'];
    for (const name of awsEnvVarNames as string[]) {
      if (!runtimeProvided.includes(name)) expect(args.environment, name).toHaveProperty(name);
    }
    // What Lambda would see once Pulumi resolves the outputs.
    const resolved = Object.fromEntries(
      Object.entries(args.environment as Record<string, unknown>).map(([k, v]) => [k, String(v)]),
    );
    expect(loadAwsConfig({ ...resolved, AWS_REGION: 'eu-west-1' })).toEqual({
      region: 'eu-west-1',
      tableName: '{Table.name}',
      bucketName: '{Artifacts.name}',
      jwt: {
        issuer: 'https://idp.example.com/',
        audience: 'svc-api',
        jwksUrl: 'https://idp.example.com/jwks',
      },
    });
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
  const valid = {
    SVC_TABLE_NAME: 'svc-table',
    SVC_BUCKET_NAME: 'svc-artifacts',
    SVC_JWT_ISSUER: 'https://svc.example.com/',
    SVC_JWT_AUDIENCE: 'svc',
    AWS_REGION: 'eu-west-1',
  };

  it('names every invalid variable and never echoes a value', async () => {
    const { loadAwsConfig } = await load('packages/functions/src/aws/config.ts');
    const env = { ...valid, SVC_TABLE_NAME: '  ', SVC_JWT_AUDIENCE: undefined, SVC_JWKS_URL: 'http://secret-host.example/jwks' };
    let message = '';
    try {
      loadAwsConfig(env);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/SVC_TABLE_NAME/);
    expect(message).toMatch(/SVC_JWT_AUDIENCE/);
    expect(message).toMatch(/SVC_JWKS_URL: must be an https URL/);
    expect(message).not.toContain('secret-host');
  });

  it('treats an empty optional variable as unset', async () => {
    const { loadAwsConfig } = await load('packages/functions/src/aws/config.ts');
    expect(loadAwsConfig({ ...valid, SVC_JWKS_URL: '' }).jwt).toEqual({
      issuer: 'https://svc.example.com/',
      audience: 'svc',
    });
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
    for (const name of ['SVC_TABLE_NAME', 'SVC_BUCKET_NAME', 'SVC_JWT_ISSUER', 'SVC_JWT_AUDIENCE']) {
      vi.stubEnv(name, '');
    }
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
    expect(body.error.message).toContain('SVC_JWT_AUDIENCE');
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

function functionUrlEvent(method: string, rawPath: string) {
  const domainName = 'abc123.lambda-url.eu-west-1.on.aws';
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath,
    rawQueryString: '',
    headers: { host: domainName, accept: 'application/json' },
    isBase64Encoded: false,
    requestContext: {
      accountId: 'anonymous',
      apiId: 'abc123',
      domainName,
      domainPrefix: 'abc123',
      http: { method, path: rawPath, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'vitest' },
      requestId: 'req-1',
      routeKey: '$default',
      stage: '$default',
      time: '01/Jan/2026:00:00:00 +0000',
      timeEpoch: 0,
    },
  };
}
