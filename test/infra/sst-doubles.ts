/**
 * Recording doubles of the SST globals ($config, $app, sst.aws.*, and Pulumi's `aws`
 * provider) that capture every declared component, its args and the calls made on it,
 * and `evaluateSstApp`, which loads sst.config.ts as `sst deploy --stage <stage>` would.
 * No AWS account, no SST binary.
 *
 * Modules are imported through computed paths so the type checker does not pull in
 * files that only type-check with SST's generated .sst/platform declarations.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, vi } from 'vitest';

export const root = fileURLToPath(new URL('../../', import.meta.url));
export const fromRoot = (...parts: string[]) => path.join(root, ...parts);
export const load = (file: string): Promise<any> => import(fromRoot(file));

/** Stands in for a Pulumi Output: identity is what the tests compare. */
export class FakeOutput {
  constructor(readonly ref: string) {}
  toString(): string {
    return `{${this.ref}}`;
  }
  /** Output.apply: recorded with its callback, so a test can run it on a concrete value. */
  apply(fn: (value: string) => unknown): AppliedOutput {
    return new AppliedOutput(this, fn);
  }
}

/** An Output derived with `.apply` or `$resolve(...).apply`: `fn` is the callback, `value` its result on the doubles' values. */
export class AppliedOutput {
  constructor(
    readonly source: unknown,
    readonly fn: (value: any) => unknown,
  ) {}
  get value(): unknown {
    return this.fn(Array.isArray(this.source) ? this.source.map(String) : String(this.source));
  }
  toString(): string {
    return String(this.value);
  }
  apply(fn: (value: any) => unknown): AppliedOutput {
    return new AppliedOutput(this, fn);
  }
}

export interface Declared {
  type: string;
  name: string;
  args: any;
  instance: any;
  /** Methods called on the component after construction (Bus.subscribeQueue, Queue.subscribe). */
  calls: { method: string; args: any[] }[];
  /** Pulumi resource options (retainOnDelete, …), when given. */
  opts?: any;
}

function installSstGlobals(stage: string) {
  const declared: Declared[] = [];
  /**
   * A component double: its outputs are FakeOutputs named `<name>.<output>` (nested
   * outputs such as `nodes.queue.name` too), and each listed method records its calls.
   */
  const component = (type: string, outputs: string[], methods: string[] = []) =>
    class {
      constructor(name: string, args: unknown = {}, opts?: unknown) {
        const record: Declared = { type, name, args, instance: this, calls: [], ...(opts === undefined ? {} : { opts }) };
        for (const attr of outputs) setPath(this, attr, new FakeOutput(`${name}.${attr}`));
        for (const method of methods) {
          Object.defineProperty(this, method, { value: (...callArgs: any[]) => void record.calls.push({ method, args: callArgs }) });
        }
        declared.push(record);
      }
    };
  vi.stubGlobal('$config', (config: unknown) => config);
  vi.stubGlobal('$app', { name: 'svc', stage });
  vi.stubGlobal('$dev', false);
  vi.stubGlobal('$interpolate', (parts: TemplateStringsArray, ...values: unknown[]) =>
    new FakeOutput(parts.reduce((acc, part, i) => acc + part + (i < values.length ? String(values[i]) : ''), '')),
  );
  vi.stubGlobal('$resolve', (values: unknown[]) => ({ apply: (fn: (resolved: string[]) => unknown) => new AppliedOutput(values, fn) }));
  vi.stubGlobal('sst', {
    aws: {
      Dynamo: component('sst.aws.Dynamo', ['name', 'arn']),
      Bucket: component('sst.aws.Bucket', ['name', 'arn']),
      Function: component('sst.aws.Function', ['name', 'arn', 'url']),
      Bus: component('sst.aws.Bus', ['name', 'arn'], ['subscribe', 'subscribeQueue']),
      Queue: component('sst.aws.Queue', ['arn', 'url', 'nodes.queue.name'], ['subscribe']),
      Cron: component('sst.aws.Cron', []),
    },
    Secret: secretComponent(declared),
  });
  // Pulumi's AWS provider, for the resources SST has no component for.
  vi.stubGlobal('aws', {
    cloudwatch: { MetricAlarm: component('aws.cloudwatch.MetricAlarm', ['name', 'arn']) },
    iam: {
      Role: component('aws.iam.Role', ['id', 'name', 'arn']),
      RolePolicy: component('aws.iam.RolePolicy', ['id', 'name']),
    },
    kms: { Key: component('aws.kms.Key', ['id', 'arn', 'keyId']) },
    sfn: { StateMachine: component('aws.sfn.StateMachine', ['id', 'name', 'arn']) },
    sns: {
      Topic: component('aws.sns.Topic', ['id', 'name', 'arn']),
      TopicSubscription: component('aws.sns.TopicSubscription', ['id', 'arn']),
    },
  });
  return declared;
}

/**
 * sst.Secret as SST's source defines it (platform/src/components/secret.ts): its value is
 * `SST_SECRET_<name>` (which the CLI sets from `sst secret set`) or else the placeholder;
 * with neither, the constructor throws and the deploy stops. Recorded with `args` =
 * { placeholder }; `value` is a FakeOutput named `<name>.value`.
 */
function secretComponent(declared: Declared[]) {
  return class {
    readonly value: FakeOutput;
    constructor(name: string, placeholder?: string) {
      const value = process.env[`SST_SECRET_${name}`] ?? placeholder;
      if (typeof value !== 'string') throw new Error(`Set a value for ${name} with \`sst secret set ${name} <value>\``);
      this.value = new FakeOutput(`${name}.value`);
      declared.push({ type: 'sst.Secret', name, args: { placeholder }, instance: this, calls: [] });
    }
  };
}

function setPath(target: object, dotted: string, value: unknown) {
  const keys = dotted.split('.');
  let at: any = target;
  for (const key of keys.slice(0, -1)) {
    if (!(key in at)) Object.defineProperty(at, key, { value: {} });
    at = at[key];
  }
  Object.defineProperty(at, keys[keys.length - 1]!, { value });
}

/** The variables an operator may set in the deploying shell (infra passes them through). */
export const operatorVariables = ['SVC_JWKS_URL', 'SVC_JWT_ISSUER', 'SVC_JWT_AUDIENCE', 'SVC_CORS_ORIGINS', 'SVC_LOG_LEVEL', 'SVC_METRICS_TOKEN', 'SVC_PUBLIC_URL', 'SVC_DISCOVERY_ALLOWED_HOSTS'];

/**
 * Evaluates sst.config.ts as `sst deploy --stage <stage>` would, from a clean module
 * graph, in a shell where exactly `env` of the operator and model variables (and of the
 * secrets, as `SST_SECRET_<name>`) is set. Callers undo
 * the stubs with vi.unstubAllGlobals() and vi.unstubAllEnvs().
 */
export async function evaluateSstApp(stage = 'test', env: Record<string, string> = {}) {
  vi.resetModules();
  const declared = installSstGlobals(stage);
  // The test runner's own shell must not leak into the deploy under test.
  for (const name of [...operatorVariables, 'SVC_ALERT_EMAIL', 'SVC_KMS_KEY_ID']) vi.stubEnv(name, '');
  const { modelSettingNames, modelSecrets } = await load('infra/model-settings.ts');
  for (const name of modelSettingNames as string[]) vi.stubEnv(name, undefined);
  for (const { secret, variable } of modelSecrets as { secret: string; variable: string }[]) {
    vi.stubEnv(variable, undefined);
    vi.stubEnv(`SST_SECRET_${secret}`, undefined);
  }
  for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
  const config = (await load('sst.config.ts')).default;
  const app = config.app({ stage });
  const outputs = await config.run();
  const only = (type: string) => {
    const found = declared.filter((d) => d.type === type);
    expect(found, `exactly one ${type}`).toHaveLength(1);
    return found[0]!;
  };
  /** The one component declared under `name` (several share a type, e.g. the functions). */
  const named = (name: string) => {
    const found = declared.filter((d) => d.name === name);
    expect(found, `exactly one component named ${name}`).toHaveLength(1);
    return found[0]!;
  };
  return { app, outputs, declared, only, named };
}

/** What Lambda would see once Pulumi resolves the outputs. */
export function resolvedEnvironment(environment: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(Object.entries(environment).map(([k, v]) => [k, String(v)]));
}

/** A Lambda function URL event (payload format 2.0). */
export function functionUrlEvent(
  method: string,
  rawPath: string,
  options: { headers?: Record<string, string>; body?: string; cookies?: string[]; base64?: boolean } = {},
) {
  const domainName = 'abc123.lambda-url.eu-west-1.on.aws';
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath,
    rawQueryString: '',
    headers: { host: domainName, accept: 'application/json', 'x-forwarded-proto': 'https', ...options.headers },
    ...(options.cookies ? { cookies: options.cookies } : {}),
    // A function URL passes a body it does not take for text (form-encoded ones among them) base64-encoded.
    ...(options.body !== undefined ? { body: options.base64 ? Buffer.from(options.body).toString('base64') : options.body } : {}),
    isBase64Encoded: !!options.base64,
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
