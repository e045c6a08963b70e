/**
 * FileTable: the shared conformance suite (in memory and on disk), then what only a
 * file-backed table has to get right — restarts, torn writes, compaction, locking and
 * surviving SIGKILL.
 */
import { spawn, spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { Item, Table } from '@svc/core/ports/table';
import { FileTable } from '../../packages/functions/src/local/file-table.ts';
import { tableConformance } from './table.conformance.ts';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const childScript = join(repoRoot, 'test/support/file-table-child.ts');

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'file-table-'));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

tableConformance('FileTable (in memory)', async () => {
  const table = new FileTable();
  return { table, cleanup: () => table.close() };
});

tableConformance('FileTable (folder)', async () => {
  const table = await FileTable.open(tempDir());
  return { table, cleanup: () => table.close() };
});

async function everything(table: Table, pk: string): Promise<Item[]> {
  const items: Item[] = [];
  let cursor: string | undefined;
  do {
    const page = await table.query({ pk, cursor, limit: 1000 });
    items.push(...page.items);
    cursor = page.cursor;
  } while (cursor);
  return items;
}

function runChild(args: string[]): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', childScript, ...args], { cwd: repoRoot });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolvePromise(out) : reject(new Error(`child exited ${code}: ${err}`))));
  });
}

describe('FileTable persistence', () => {
  it('keeps data across close and reopen', async () => {
    const dir = tempDir();
    const a = await FileTable.open(dir);
    await a.put({ pk: 'P', sk: '1', v: 1, gsi1pk: 'G', gsi1sk: 'x' });
    await a.put({ pk: 'P', sk: '2', v: 2 });
    await a.put({ pk: 'P', sk: '3', v: 3 });
    await a.update({ key: { pk: 'P', sk: '2' }, add: { v: 10 } });
    await a.delete({ pk: 'P', sk: '3' });
    await a.transact([
      { type: 'put', item: { pk: 'P', sk: '4' } },
      { type: 'delete', key: { pk: 'P', sk: '1' } },
      { type: 'put', item: { pk: 'Q', sk: '1', gsi1pk: 'G', gsi1sk: 'y' } },
    ]);
    const before = await everything(a, 'P');
    await a.close();

    const b = await FileTable.open(dir);
    expect(await everything(b, 'P')).toEqual(before);
    expect(before.map((i) => [i.sk, i.v])).toEqual([
      ['2', 12],
      ['4', undefined],
    ]);
    expect((await b.query({ index: 'gsi1', pk: 'G' })).items.map((i) => i.pk)).toEqual(['Q']);
    await b.close();
  });

  it('ignores a torn trailing journal line and keeps appending cleanly', async () => {
    const dir = tempDir();
    const a = await FileTable.open(dir);
    await a.put({ pk: 'P', sk: 'A' });
    await a.put({ pk: 'P', sk: 'B' });
    await a.close();
    appendFileSync(join(dir, 'journal.jsonl'), '{"put":[{"pk":"P","sk":"C"'); // a write cut short

    const b = await FileTable.open(dir);
    expect((await everything(b, 'P')).map((i) => i.sk)).toEqual(['A', 'B']);
    await b.put({ pk: 'P', sk: 'D' });
    await b.close();

    const c = await FileTable.open(dir);
    expect((await everything(c, 'P')).map((i) => i.sk)).toEqual(['A', 'B', 'D']);
    await c.close();
  });

  it('refuses a journal damaged before its last line', async () => {
    const dir = tempDir();
    const a = await FileTable.open(dir);
    await a.put({ pk: 'P', sk: 'A' });
    await a.close();
    const journal = join(dir, 'journal.jsonl');
    writeFileSync(journal, `garbage\n${readFileSync(journal, 'utf8')}`);
    await expect(FileTable.open(dir)).rejects.toThrow(/corrupt/);
    // The failed open must not leave the folder locked.
    writeFileSync(journal, '');
    await (await FileTable.open(dir)).close();
  });

  it('compacts into a snapshot without losing data, dropping expired items', async () => {
    const dir = tempDir();
    const a = await FileTable.open(dir, { compactBytes: 2048 });
    const past = Math.floor(Date.now() / 1000) - 60;
    for (let i = 0; i < 200; i++) {
      await a.put({ pk: 'P', sk: `k${String(i).padStart(3, '0')}`, i, ...(i % 50 === 0 ? { expiresAt: past } : {}) });
      if (i % 3 === 0) await a.update({ key: { pk: 'P', sk: `k${String(i).padStart(3, '0')}` }, add: { i: 1000 } }).catch(() => {});
      if (i % 7 === 0) await a.delete({ pk: 'P', sk: `k${String(i).padStart(3, '0')}` });
    }
    const before = await everything(a, 'P');
    expect(existsSync(join(dir, 'snapshot.jsonl'))).toBe(true);
    expect(statSync(join(dir, 'journal.jsonl')).size).toBeLessThan(statSync(join(dir, 'snapshot.jsonl')).size + 2048);
    await a.close();
    expect(readFileSync(join(dir, 'snapshot.jsonl'), 'utf8')).not.toContain(`"expiresAt":${past}`);

    const b = await FileTable.open(dir);
    expect(await everything(b, 'P')).toEqual(before);
    await b.close();
  });

  it('writes each journal line as the JSON of the stored items, for puts and deletes in one transaction', async () => {
    const dir = tempDir();
    const a = await FileTable.open(dir);
    await a.put({ pk: 'P', sk: 'gone', v: 0 });
    await a.transact([
      { type: 'put', item: { pk: 'P', sk: 'A', nested: { list: [1, 'two', null], text: 'line\nbreak "quoted"' }, dropped: undefined } },
      { type: 'delete', key: { pk: 'P', sk: 'gone' } },
    ]);
    const lines = readFileSync(join(dir, 'journal.jsonl'), 'utf8').trim().split('\n');
    expect(JSON.parse(lines.at(-1)!)).toEqual({ put: [{ pk: 'P', sk: 'A', nested: { list: [1, 'two', null], text: 'line\nbreak "quoted"' } }], del: [{ pk: 'P', sk: 'gone' }] });
    const before = await everything(a, 'P');
    await a.close();
    const b = await FileTable.open(dir, { compactBytes: 1 }); // the next write compacts
    await b.put({ pk: 'P', sk: 'B' });
    await b.close();
    const c = await FileTable.open(dir);
    expect(await everything(c, 'P')).toEqual([...before, { pk: 'P', sk: 'B' }]);
    await c.close();
  });

  it('replays safely if a crash left the journal untruncated after a compaction', async () => {
    const dir = tempDir();
    const a = await FileTable.open(dir);
    for (let i = 0; i < 20; i++) await a.put({ pk: 'P', sk: `k${i}`, v: i });
    for (let i = 0; i < 20; i += 2) await a.update({ key: { pk: 'P', sk: `k${i}` }, add: { v: 100 } });
    for (let i = 0; i < 20; i += 5) await a.delete({ pk: 'P', sk: `k${i}` });
    await a.close();
    const journal = readFileSync(join(dir, 'journal.jsonl'));

    const b = await FileTable.open(dir, { compactBytes: 1 }); // the next write compacts
    await b.put({ pk: 'P', sk: 'last' });
    const expected = await everything(b, 'P');
    await b.close();
    expect(statSync(join(dir, 'journal.jsonl')).size).toBe(0);

    // As if the process died after renaming the snapshot but before truncating the journal.
    writeFileSync(join(dir, 'journal.jsonl'), journal);
    const c = await FileTable.open(dir);
    expect(await everything(c, 'P')).toEqual(expected);
    await c.close();
  });
});

describe('FileTable locking', () => {
  it('refuses a second open in the same process until the first closes', async () => {
    const dir = tempDir();
    const a = await FileTable.open(dir);
    await expect(FileTable.open(dir)).rejects.toThrow(/already open in this process/);
    await a.close();
    const b = await FileTable.open(dir);
    await b.close();
  });

  it('refuses an open from another process while locked', async () => {
    const dir = tempDir();
    const a = await FileTable.open(dir);
    const out = await runChild(['open', dir]);
    expect(out).toMatch(new RegExp(`error: .*in use by process ${process.pid}`));
    await a.close();
    expect(await runChild(['open', dir])).toBe('opened\n');
  });

  it('takes over a stale lock left by a dead process', async () => {
    const dir = tempDir();
    const dead = spawnSync(process.execPath, ['-e', '']).pid!;
    writeFileSync(join(dir, 'LOCK'), JSON.stringify({ pid: dead, host: 'gone' }));
    const table = await FileTable.open(dir);
    await table.put({ pk: 'P', sk: 'A' });
    await table.close();
  });

  it('takes over a lock whose process has exited but not been reaped: a zombie holds nothing (it read as alive; noted by QA)', async () => {
    const dir = tempDir();
    // `sleep 0 &` exits at once; its parent then execs `sleep`, which never waits for it: a zombie.
    const parent = spawn('sh', ['-c', 'sleep 0 & echo $!; exec sleep 30']);
    try {
      const zombie = Number(await new Promise<string>((r) => parent.stdout.once('data', (d: Buffer) => r(d.toString().trim()))));
      await expect.poll(() => readFileSync(`/proc/${zombie}/stat`, 'utf8').split(') ')[1]?.[0], { timeout: 5_000 }).toBe('Z');
      writeFileSync(join(dir, 'LOCK'), JSON.stringify({ pid: zombie, host: 'here' }));
      const table = await FileTable.open(dir);
      await table.put({ pk: 'P', sk: 'A' });
      await table.close();
      // A live process's lock still holds.
      writeFileSync(join(dir, 'LOCK'), JSON.stringify({ pid: parent.pid, host: 'here' }));
      await expect(FileTable.open(dir)).rejects.toThrow(new RegExp(`in use by process ${parent.pid}`));
    } finally {
      parent.kill('SIGKILL');
    }
  });

  it('rejects use after close', async () => {
    const table = new FileTable();
    await table.close();
    await expect(table.get({ pk: 'P', sk: 'A' })).rejects.toThrow(/closed/);
    expect((await table.health()).status).toBe('down');
  });
});

describe('FileTable crash safety', () => {
  it('loses no acknowledged write when the process is SIGKILLed', async () => {
    const dir = tempDir();
    const child = spawn(process.execPath, ['--import', 'tsx', childScript, 'write', dir], { cwd: repoRoot });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    let buffered = '';
    let acked = -1;
    const killed = new Promise<void>((resolvePromise, reject) => {
      child.on('exit', () => resolvePromise());
      child.on('error', reject);
    });
    await new Promise<void>((resolvePromise, reject) => {
      child.on('exit', (code, signal) => {
        if (signal !== 'SIGKILL') reject(new Error(`writer exited early (${code ?? signal}): ${stderr}`));
      });
      child.stdout.on('data', (chunk: Buffer) => {
        buffered += chunk.toString();
        const lines = buffered.split('\n');
        buffered = lines.pop()!;
        if (lines.length) acked = Number(lines.at(-1));
        // Enough writes to have compacted a few times, then kill mid-stream.
        if (acked >= 5000 && !child.killed) {
          child.kill('SIGKILL');
          resolvePromise();
        }
      });
    });
    await killed;

    const table = await FileTable.open(dir); // the dead writer's lock is stale
    const written = await everything(table, 'W');
    const byIndex = new Set(written.map((i) => i.i as number));
    const missing = Array.from({ length: acked + 1 }, (_, i) => i).filter((i) => !byIndex.has(i));
    expect(missing).toEqual([]);
    // Transactions are all-or-nothing on disk as well.
    const txItems = await everything(table, 'T');
    for (const item of txItems) expect(byIndex.has(item.i as number)).toBe(true);
    expect(txItems.length).toBeGreaterThanOrEqual(Math.floor((acked + 1) / 10));
    expect(existsSync(join(dir, 'snapshot.jsonl'))).toBe(true);
    await table.close();
  });
});
