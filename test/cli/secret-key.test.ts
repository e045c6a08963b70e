/**
 * `svc start` and the local secret key: the first start creates <data-dir>/secret-key
 * (mode 600, never printed); a restart opens what the first one sealed (a notification
 * channel's URL and signing secret: its test message is delivered and signed); a missing,
 * corrupt or different key file stops the start with a message naming the file.
 */
import { spawn } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client } from '../support/server.ts';

const root = join(import.meta.dirname, '..', '..');
const bin = join(root, 'node_modules', '.bin', 'svc');

/** Starts `svc start`; resolves with its URL once it printed it, or rejects with its exit code and output. */
function startCli(dataDir: string) {
  const child = spawn(bin, ['start', '--port', '0', '--data-dir', dataDir], { cwd: root, env: { ...process.env, SVC_LOG_LEVEL: 'SILENT', SVC_SECRET_KEY_FILE: '' } });
  let out = '';
  const ready = new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (d) => {
      out += d;
      const m = /running at (http:\/\/\S+)/.exec(out);
      if (m && out.includes('Admin API key')) resolve(m[1]!);
    });
    child.stderr.on('data', (d) => (out += d));
    child.once('exit', (code) => reject(Object.assign(new Error(`svc start exited ${code}`), { code, out })));
  });
  return { child, ready, output: () => out };
}

const stop = (child: ReturnType<typeof spawn>) =>
  new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });

async function signIn(url: string, dataDir: string) {
  const admin = JSON.parse(await readFile(join(dataDir, 'first-admin.json'), 'utf8'));
  const res = await client(url).post('/api/auth/login', { email: admin.email, password: admin.password });
  expect(res.status, res.text).toBe(200);
  return client(url, { token: res.body.access_token, org: admin.organizationId });
}

async function failedStart(dataDir: string): Promise<{ code: number; out: string }> {
  const { ready } = startCli(dataDir);
  return ready.then(() => { throw new Error('svc start should have stopped'); }, (err: { code: number; out: string }) => err);
}

let dataDir: string;
let receiver: Server;
let receiverUrl: string;
const received: { headers: IncomingMessage['headers']; body: string }[] = [];

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'svc-secret-key-'));
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((r) => receiver?.close(r));
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe('svc start and the secret key', () => {
  let secret: string;
  let channelId: string;

  it('creates secret-key with mode 600 on first start and never prints it', async () => {
    const first = startCli(dataDir);
    const url = await first.ready;
    try {
      const keyFile = join(dataDir, 'secret-key');
      expect((await stat(keyFile)).mode & 0o777).toBe(0o600);
      const key = (await readFile(keyFile, 'utf8')).trim();
      expect(Buffer.from(key, 'base64')).toHaveLength(32);
      expect(first.output()).not.toContain(key);
      const api = await signIn(url, dataDir);
      const channel = await api.post('/api/notifications/channels', { name: 'hook', kind: 'webhook', url: `${receiverUrl}/hook`, events: ['run_failed'] });
      expect(channel.status, channel.text).toBe(201);
      ({ id: channelId, signing_secret: secret } = channel.body);
    } finally {
      await stop(first.child);
    }
  });

  it('opens after a restart what the first start sealed', async () => {
    const again = startCli(dataDir);
    const url = await again.ready;
    try {
      const api = await signIn(url, dataDir);
      const sent = await api.post(`/api/notifications/channels/${channelId}/test`);
      expect(sent.body, sent.text).toMatchObject({ status: 'delivered' });
      const last = received.at(-1)!;
      const [, t, v1] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(last.headers['x-svc-signature']))!;
      expect(v1).toBe(createHmac('sha256', secret).update(`${t}.${last.body}`).digest('hex'));
    } finally {
      await stop(again.child);
    }
  });

  it('stops with a clear error when the key file is missing, corrupt or another key, and starts again once it is back', async () => {
    const keyFile = join(dataDir, 'secret-key');
    await rename(keyFile, `${keyFile}.saved`);
    try {
      const missing = await failedStart(dataDir);
      expect(missing.code).toBe(1);
      expect(missing.out).toMatch(new RegExp(`secret key file ${keyFile.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is missing, and this data folder's secrets are sealed with key local:[0-9a-f]{16}`));

      await writeFile(keyFile, 'not a key\n', { mode: 0o600 });
      const corrupt = await failedStart(dataDir);
      expect(corrupt.code).toBe(1);
      expect(corrupt.out).toContain(`the secret key file ${keyFile} is not a secret key`);

      await writeFile(keyFile, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600 });
      const other = await failedStart(dataDir);
      expect(other.code).toBe(1);
      expect(other.out).toMatch(/holds key local:[0-9a-f]{16}, but this data folder's secrets are sealed with key local:[0-9a-f]{16}/);
    } finally {
      await rename(`${keyFile}.saved`, keyFile);
    }
    const back = startCli(dataDir);
    await back.ready;
    await stop(back.child);
  });
});
