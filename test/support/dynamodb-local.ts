/**
 * Starts DynamoDB Local (the jar shipped in the amplify-dynamodb-simulator package) for
 * tests. Each call gets its own in-memory instance on a free port.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { DeleteTableCommand, DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import type { Clock } from '@svc/core/ports/clock';
import { afterAll, beforeAll } from 'vitest';
import { DynamoDbTable, ensureTable } from '../../packages/functions/src/aws/dynamodb-table.ts';

export interface DynamoDbLocal {
  endpoint: string;
  stop(): Promise<void>;
}

const STARTUP_TIMEOUT_MS = 60_000;

function emulatorDir(): string {
  const require = createRequire(import.meta.url);
  const dir = join(dirname(require.resolve('amplify-dynamodb-simulator/package.json')), 'emulator');
  if (!existsSync(join(dir, 'DynamoDBLocal.jar'))) {
    throw new Error(`DynamoDBLocal.jar not found under ${dir}; is amplify-dynamodb-simulator installed?`);
  }
  return dir;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** A client for DynamoDB Local: it accepts any credentials, but the SDK insists on some. */
export function localClient(endpoint: string): DynamoDBClient {
  return new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
}

/**
 * The jar runs under a tiny sh wrapper whose stdin is a pipe from this process: when
 * this process dies in any way (even SIGKILL, where no exit handler runs) the pipe
 * closes, the watcher's `cat` sees EOF and kills java, so no emulator is left behind.
 * Background jobs in sh read /dev/null by default, hence the explicit fd 3.
 */
const WRAPPER = [
  'exec 3<&0',
  'java "$@" </dev/null & java_pid=$!',
  '(cat <&3 >/dev/null; kill -9 $java_pid 2>/dev/null) & watcher=$!',
  'exec 3<&-',
  'wait $java_pid; status=$?',
  'kill $watcher 2>/dev/null',
  'exit $status',
].join('\n');

export async function startDynamoDbLocal(): Promise<DynamoDbLocal> {
  const dir = emulatorDir();
  let lastError: unknown;
  // A free port can be taken between probing and java binding it; retry on a new one.
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freePort();
    // DynamoDB Local has no bind-address option, so it listens on all interfaces.
    const args = [
      '-XX:+UseSerialGC',
      '-XX:TieredStopAtLevel=1', // faster JVM start; the emulator is not CPU-bound in tests
      `-Djava.library.path=${join(dir, 'DynamoDBLocal_lib')}`,
      '-jar',
      join(dir, 'DynamoDBLocal.jar'),
      '-inMemory',
      '-disableTelemetry',
      '-port',
      String(port),
    ];
    const child = spawn('sh', ['-c', WRAPPER, 'dynamodb-local', ...args], {
      cwd: dir,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const endpoint = `http://127.0.0.1:${port}`;
    try {
      await waitUntilReady(child, endpoint);
      return { endpoint, stop: () => stopChild(child) };
    } catch (err) {
      lastError = err;
      await stopChild(child);
    }
  }
  throw lastError;
}

async function waitUntilReady(child: ChildProcess, endpoint: string): Promise<void> {
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-4000); // enough to explain a failure
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  let exited: number | null | undefined;
  child.once('exit', (code) => (exited = code));
  const client = localClient(endpoint);
  const deadline = Date.now() + STARTUP_TIMEOUT_MS;
  try {
    for (;;) {
      if (exited !== undefined) throw new Error(`DynamoDB Local exited (code ${exited}):\n${output}`);
      if (Date.now() > deadline) throw new Error(`DynamoDB Local did not answer on ${endpoint}:\n${output}`);
      try {
        await client.send(new ListTablesCommand({}), { abortSignal: AbortSignal.timeout(2000) });
        return;
      } catch {
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  } finally {
    client.destroy();
  }
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.stdin?.end(); // the wrapper's watcher kills java on EOF
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

/**
 * One DynamoDB Local for the calling test file (started in beforeAll, stopped in
 * afterAll) and fresh tables on it, each with the svc layout.
 */
export function useDynamoDbLocal(prefix: string) {
  let ddb: DynamoDbLocal | undefined;
  let client: DynamoDBClient | undefined;
  let n = 0;
  beforeAll(async () => {
    ddb = await startDynamoDbLocal();
    client = localClient(ddb.endpoint);
  });
  afterAll(async () => {
    client?.destroy();
    await ddb?.stop();
  });
  return {
    get client(): DynamoDBClient {
      if (!client) throw new Error('DynamoDB Local is not started yet (use it inside tests or hooks)');
      return client;
    },
    async freshTable(options: { clock?: Clock } = {}): Promise<DynamoDbTable> {
      return (await this.tableFixture(options)).table;
    },
    /** A fresh table and a cleanup that drops it. */
    async tableFixture(options: { clock?: Clock } = {}): Promise<{ table: DynamoDbTable; tableName: string; cleanup(): Promise<void> }> {
      const tableName = `${prefix}-${process.pid}-${++n}`;
      const c = this.client;
      await ensureTable(c, tableName);
      return {
        table: new DynamoDbTable({ tableName, client: c, clock: options.clock }),
        tableName,
        cleanup: async () => {
          await c.send(new DeleteTableCommand({ TableName: tableName }));
        },
      };
    },
  };
}
