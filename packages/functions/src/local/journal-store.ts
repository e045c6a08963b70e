/**
 * Durable storage for FileTable: a snapshot plus an append-only journal in one folder.
 *
 *   snapshot.jsonl  header line, then one item per line; replaced atomically (temp file,
 *                   fsync, rename), so it is always complete
 *   journal.jsonl   one line per acknowledged write: {"put":[items],"del":[keys]}
 *
 * A write is one appendFileSync of one line, done before the write's promise resolves,
 * so a killed process loses nothing it acknowledged (the data is in the OS page cache;
 * `fsync: true` also survives power loss, at a cost per write). Journal lines record
 * resulting items, not operations, so replay needs no clock and no condition checks,
 * and replaying a line twice is harmless — which makes the crash window between
 * "snapshot renamed" and "journal truncated" safe.
 */
import {
  closeSync,
  existsSync,
  fdatasyncSync,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  writeSync,
  appendFileSync,
} from 'node:fs';
import { join } from 'node:path';
import type { Item, ItemKey } from '@svc/core/ports/table';
import { keyString } from '../table-rules.ts';
import { acquireDirLock } from './dir-lock.ts';

export interface JournalRecord {
  put?: Item[];
  del?: ItemKey[];
}

export interface JournalStoreOptions {
  /** Compact once the journal exceeds this many bytes (or the snapshot's size, if larger). */
  compactBytes?: number;
  /** fdatasync after every write: survives power loss, not just process death. */
  fsync?: boolean;
}

const SNAPSHOT = 'snapshot.jsonl';
const JOURNAL = 'journal.jsonl';
const FORMAT = { format: 'svc-file-table', version: 1 };
const DEFAULT_COMPACT_BYTES = 8 * 1024 * 1024;
const WRITE_CHUNK_BYTES = 1024 * 1024;

export class JournalStore {
  private journalFd: number;
  private journalBytes: number;
  private snapshotBytes = 0;
  private readonly compactBytes: number;
  private readonly fsync: boolean;

  private constructor(
    readonly dir: string,
    private readonly release: () => void,
    options: JournalStoreOptions,
  ) {
    this.compactBytes = options.compactBytes ?? DEFAULT_COMPACT_BYTES;
    this.fsync = options.fsync ?? false;
    this.journalFd = -1;
    this.journalBytes = 0;
  }

  /** Locks the folder and loads its state: the map of items by keyString. */
  static open(dir: string, options: JournalStoreOptions = {}): { store: JournalStore; items: Map<string, Item> } {
    mkdirSync(dir, { recursive: true });
    const release = acquireDirLock(dir);
    try {
      const store = new JournalStore(dir, release, options);
      const items = store.load();
      store.journalFd = openSync(join(dir, JOURNAL), 'a'); // O_APPEND: every write lands at the end
      store.journalBytes = fstatSync(store.journalFd).size;
      if (store.fsync) fsyncDir(dir); // a new journal's directory entry must survive power loss too
      return { store, items };
    } catch (err) {
      release();
      throw err;
    }
  }

  /**
   * Appends one record as one line. Throws (and leaves the journal as it was) if the disk
   * refuses it. `putJson[i]`, when given, is JSON.stringify(record.put[i]), already made by
   * the caller: a run's checkpoints are the largest items, and stringifying them twice showed.
   */
  append(record: JournalRecord, putJson: ReadonlyArray<string | undefined> = []): void {
    const parts = [...(record.put ? [`"put":[${record.put.map((item, i) => putJson[i] ?? JSON.stringify(item)).join(',')}]`] : []), ...(record.del ? [`"del":${JSON.stringify(record.del)}`] : [])];
    const line = Buffer.from(`{${parts.join(',')}}\n`, 'utf8');
    try {
      appendFileSync(this.journalFd, line);
      if (this.fsync) fdatasyncSync(this.journalFd);
    } catch (err) {
      // A partial line (e.g. ENOSPC) must not be replayed as a write the caller saw fail.
      try {
        ftruncateSync(this.journalFd, this.journalBytes);
      } catch {
        // the torn tail is dropped on the next open anyway
      }
      throw err;
    }
    this.journalBytes += line.length;
  }

  /** Amortised: compacting only once the journal outgrows the snapshot keeps rewrite cost O(1) per byte written. */
  needsCompaction(): boolean {
    return this.journalBytes > Math.max(this.compactBytes, this.snapshotBytes);
  }

  /** Writes `items` as the new snapshot and empties the journal. */
  compact(items: Iterable<Item>): void {
    const tmp = join(this.dir, `${SNAPSHOT}.tmp`);
    const fd = openSync(tmp, 'w');
    let bytes = 0;
    try {
      let chunk: string[] = [JSON.stringify(FORMAT)];
      let chunkLength = 0;
      const flush = () => {
        const buf = Buffer.from(`${chunk.join('\n')}\n`, 'utf8');
        writeAll(fd, buf);
        bytes += buf.length;
        chunk = [];
        chunkLength = 0;
      };
      for (const item of items) {
        const line = JSON.stringify(item);
        chunk.push(line);
        chunkLength += line.length;
        if (chunkLength >= WRITE_CHUNK_BYTES) flush();
      }
      if (chunk.length) flush();
      fsyncSync(fd); // the data must be on disk before the rename makes it the snapshot
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, join(this.dir, SNAPSHOT));
    fsyncDir(this.dir); // persist the rename itself
    ftruncateSync(this.journalFd, 0);
    if (this.fsync) fdatasyncSync(this.journalFd);
    this.journalBytes = 0;
    this.snapshotBytes = bytes;
  }

  close(): void {
    if (this.journalFd >= 0) closeSync(this.journalFd);
    this.journalFd = -1;
    this.release();
  }

  private load(): Map<string, Item> {
    const items = new Map<string, Item>();
    const snapshotPath = join(this.dir, SNAPSHOT);
    if (existsSync(snapshotPath)) {
      const text = readFileSync(snapshotPath, 'utf8');
      this.snapshotBytes = Buffer.byteLength(text);
      const lines = text.split('\n');
      if (lines.at(-1) === '') lines.pop();
      const header = lines.length ? safeParse(lines[0]) : undefined;
      if (!isFormatHeader(header)) throw new Error(`${snapshotPath} is not a FileTable snapshot (version 1)`);
      for (let i = 1; i < lines.length; i++) {
        const item = safeParse(lines[i]) as Item | undefined;
        // Snapshots appear only by atomic rename, so damage here is not a crash artefact.
        if (!item || typeof item.pk !== 'string') throw new Error(`${snapshotPath} line ${i + 1} is corrupt`);
        items.set(keyString(item), item);
      }
    }
    const journalPath = join(this.dir, JOURNAL);
    if (existsSync(journalPath)) {
      const validBytes = replayJournal(readFileSync(journalPath), items, journalPath);
      // Cut off a torn tail so the next append starts on a fresh line.
      const fd = openSync(journalPath, 'r+');
      try {
        if (fstatSync(fd).size !== validBytes) ftruncateSync(fd, validBytes);
      } finally {
        closeSync(fd);
      }
    }
    return items;
  }
}

/**
 * Applies every complete journal line to `items`; returns the byte length of the valid
 * prefix. Only the last line may be damaged (a write cut short by a crash, never
 * acknowledged); damage before intact lines means real corruption, which must not be
 * silently skipped.
 */
function replayJournal(data: Buffer, items: Map<string, Item>, path: string): number {
  let offset = 0;
  let lineNo = 0;
  while (offset < data.length) {
    const newline = data.indexOf(0x0a, offset);
    lineNo++;
    const end = newline < 0 ? data.length : newline;
    const record = newline < 0 ? undefined : (safeParse(data.toString('utf8', offset, end)) as JournalRecord | undefined);
    if (!record || typeof record !== 'object') {
      // After a power cut the tail can also be zero-filled, so NULs count as "nothing more".
      const isLast = newline < 0 || data.subarray(newline + 1).every((b) => b === 0x0a || b === 0);
      if (isLast) return offset;
      throw new Error(`${path} line ${lineNo} is corrupt and followed by more writes; refusing to guess`);
    }
    for (const key of record.del ?? []) items.delete(keyString(key));
    for (const item of record.put ?? []) items.set(keyString(item), item);
    offset = end + 1;
  }
  return offset;
}

function writeAll(fd: number, buf: Buffer): void {
  let written = 0;
  while (written < buf.length) written += writeSync(fd, buf, written, buf.length - written);
}

function fsyncDir(dir: string): void {
  try {
    const fd = openSync(dir, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // Some platforms (Windows) cannot fsync a directory; the rename is still atomic there.
  }
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function isFormatHeader(value: unknown): boolean {
  const v = value as { format?: unknown; version?: unknown } | undefined;
  return v?.format === FORMAT.format && v.version === FORMAT.version;
}
