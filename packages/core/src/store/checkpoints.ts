import type { Checkpoint, CheckpointMetadata, CheckpointSummary, CheckpointWrite } from '../contracts/checkpoint.ts';
import { ConditionFailedError, type WriteOp } from '../ports/table.ts';
import { AppError } from '../errors.ts';
import { stripLayout } from './keys.ts';
import { runGraphKeys as k } from './run-graph-keys.ts';
import { queryAll, queryPage, type Page, type StoreContext } from './context.ts';

/** DynamoDB items are at most 400 KB: a larger serialised state is split into chunk items. */
const CHUNK_CHARS = 300_000;
/** A write whose blob is longer is stored without its value (see fitted). */
export const MAX_WRITE_BLOB_CHARS = CHUNK_CHARS;
/** DynamoDB transactions hold at most 25 operations. */
const MAX_TRANSACTION_OPS = 25;

export interface SaveCheckpointInput {
  checkpoint: Checkpoint;
  writes: Array<Omit<CheckpointWrite, 'thread_id' | 'checkpoint_ns' | 'checkpoint_id'>>;
  /** The head this checkpoint follows; null when the namespace has no checkpoint yet. */
  expectedHead: string | null;
}

/**
 * Execution thread state (spec "Execution thread state"): checkpoints, their writes and
 * each namespace's head. Saving is conditional on the head: two writers racing on one
 * thread (parallel test executions) cannot both extend the same checkpoint — the loser
 * gets `false` and re-applies its writes on the new head.
 */
export function checkpointsRepo(ctx: StoreContext) {
  const { table } = ctx;
  return {
    /** Saves a checkpoint and moves the head to it; false when the head was not `expectedHead`. */
    async save(input: SaveCheckpointInput): Promise<boolean> {
      const cp = input.checkpoint;
      const chunks = cp.checkpoint.length > CHUNK_CHARS ? splitChunks(cp.checkpoint) : [];
      const chunkOps = chunks.map((body, n): WriteOp => ({ type: 'put', item: { ...k.checkpointChunk(cp.thread_id, cp.checkpoint_ns, cp.checkpoint_id, n), entity: 'checkpoint_chunk', body } }));
      const writeOps = input.writes.map((w): WriteOp => ({
        type: 'put',
        item: { ...k.checkpointWrite(cp.thread_id, cp.checkpoint_ns, cp.checkpoint_id, w.task_id, w.idx), entity: 'checkpoint_write', thread_id: cp.thread_id, checkpoint_ns: cp.checkpoint_ns, checkpoint_id: cp.checkpoint_id, ...fitted(w) },
      }));
      const head: WriteOp =
        input.expectedHead === null
          ? { type: 'put', item: { ...k.head(cp.thread_id, cp.checkpoint_ns), entity: 'checkpoint_head', checkpoint_id: cp.checkpoint_id }, condition: { kind: 'notExists' } }
          : { type: 'update', update: { key: k.head(cp.thread_id, cp.checkpoint_ns), set: { checkpoint_id: cp.checkpoint_id }, condition: { kind: 'equals', attr: 'checkpoint_id', value: input.expectedHead } } };
      const item: WriteOp = {
        type: 'put',
        item: { ...k.checkpoint(cp.thread_id, cp.checkpoint_ns, cp.checkpoint_id), entity: 'checkpoint', ...cp, checkpoint: chunks.length ? '' : cp.checkpoint, chunks: chunks.length },
        condition: { kind: 'notExists' },
      };
      // The checkpoint becomes visible (history, head) only with the transaction; chunks and
      // writes that do not fit in it go first and are unreachable until it commits.
      // (DynamoDB also caps a transaction at 4 MB, so chunks always go first.)
      const inTransaction = !chunkOps.length && writeOps.length + 2 <= MAX_TRANSACTION_OPS ? writeOps : [];
      if (!inTransaction.length) for (const op of [...chunkOps, ...writeOps]) if (op.type === 'put') await table.put(op.item);
      try {
        await table.transact([...inTransaction, item, head]);
        return true;
      } catch (err) {
        if (err instanceof ConditionFailedError) return false;
        throw err;
      }
    },

    /** Id of the newest checkpoint of a namespace, or undefined for a thread with none. */
    async head(threadId: string, ns = ''): Promise<string | undefined> {
      const item = await table.get(k.head(threadId, ns));
      return item ? (item.checkpoint_id as string) : undefined;
    },

    /** Points the head at an earlier checkpoint (replay), if it is still `expectedHead`. */
    async moveHead(threadId: string, ns: string, checkpointId: string, expectedHead: string): Promise<boolean> {
      try {
        await table.update({ key: k.head(threadId, ns), set: { checkpoint_id: checkpointId }, condition: { kind: 'equals', attr: 'checkpoint_id', value: expectedHead } });
        return true;
      } catch (err) {
        if (err instanceof ConditionFailedError) return false;
        throw err;
      }
    },

    async get(threadId: string, ns: string, checkpointId: string): Promise<Checkpoint | undefined> {
      const item = await table.get(k.checkpoint(threadId, ns, checkpointId));
      return item && withChunks(item);
    },

    /**
     * A checkpoint and its ancestors, newest first, down to the first that stores its whole
     * state or whose parent is `stopAt` (a state the caller holds); empty when the checkpoint
     * does not exist. One descending range query reads the checkpoint and the `window` - 1
     * saved before it: on a thread never rewound those are exactly its ancestors. After a
     * rewind, checkpoints of the abandoned branch interleave, and an ancestor the page missed
     * is read on its own (so are those of a writer whose clock ran behind its parent's).
     */
    async lineage(threadId: string, ns: string, checkpointId: string, opts: { window: number; stopAt?: string }): Promise<Checkpoint[]> {
      const page = await table.query({ pk: k.checkpointPartition(threadId), skFrom: `CP#${ns}#`, skTo: k.checkpoint(threadId, ns, checkpointId).sk, descending: true, limit: opts.window });
      const near = new Map(page.items.map((i) => [i.checkpoint_id as string, i]));
      const chain: Checkpoint[] = [];
      for (let id: string | null = checkpointId; id !== null; ) {
        const item = near.get(id) ?? (await table.get(k.checkpoint(threadId, ns, id)));
        if (!item) {
          if (!chain.length) return [];
          throw new AppError('INTERNAL', `checkpoint ${id} of thread ${threadId} is missing`);
        }
        const cp = await withChunks(item);
        chain.push(cp);
        if (cp.checkpoint !== '' || cp.parent_checkpoint_id === opts.stopAt) break;
        id = cp.parent_checkpoint_id;
      }
      return chain;
    },

    /** Checkpoints of a thread without their state, newest first. */
    async list(threadId: string, opts: { ns?: string; limit: number; cursor?: string }): Promise<Page<CheckpointSummary>> {
      const page = await queryPage<Checkpoint & { chunks?: number }>(table, { pk: k.checkpointPartition(threadId), skPrefix: `CP#${opts.ns ?? ''}#`, limit: opts.limit, cursor: opts.cursor, descending: true });
      return { items: page.items.map(({ checkpoint: _c, chunks: _n, ...summary }) => summary), next_cursor: page.next_cursor };
    },

    async writes(threadId: string, ns: string, checkpointId: string): Promise<CheckpointWrite[]> {
      const items = await queryAll(table, { pk: k.checkpointPartition(threadId), skPrefix: `WR#${ns}#${checkpointId}#` });
      return items.map((i) => stripLayout<CheckpointWrite>(i));
    },

    /**
     * The writes of several checkpoints, by checkpoint id, in one range query over the ids'
     * span (writes of other checkpoints in that span are read and dropped: after a rewind,
     * the abandoned branch's).
     */
    async writesOf(threadId: string, ns: string, checkpointIds: string[]): Promise<Map<string, CheckpointWrite[]>> {
      const out = new Map(checkpointIds.map((id) => [id, [] as CheckpointWrite[]]));
      if (!checkpointIds.length) return out;
      const span = [...checkpointIds].sort();
      const items = await queryAll(table, { pk: k.checkpointPartition(threadId), skFrom: `WR#${ns}#${span[0]}#`, skTo: `WR#${ns}#${span.at(-1)}#~` });
      for (const item of items) out.get(item.checkpoint_id as string)?.push(stripLayout<CheckpointWrite>(item));
      return out;
    },
  };

  /** A stored checkpoint item as a checkpoint, its state reassembled when it was split into chunks. */
  async function withChunks(item: Record<string, unknown>): Promise<Checkpoint> {
    const { chunks, ...cp } = stripLayout<Checkpoint & { chunks?: number }>(item);
    if (chunks) {
      const parts = await queryAll(table, { pk: k.checkpointPartition(cp.thread_id), skPrefix: `CPCHUNK#${cp.checkpoint_ns}#${cp.checkpoint_id}#` });
      cp.checkpoint = parts.map((p) => p.body as string).join('');
    }
    return cp;
  }
}

/** A write's value too large for one item is left out of the write (the checkpoint's state holds it). */
function fitted<W extends { type: string; blob: string }>(w: W): W {
  if (w.blob.length <= MAX_WRITE_BLOB_CHARS) return w;
  const note = { omitted: true, bytes: Math.floor((w.blob.length * 3) / 4), reason: 'larger than one item; the value is in the checkpoint state' };
  return { ...w, type: 'json-omitted', blob: Buffer.from(JSON.stringify(note), 'utf8').toString('base64') };
}

function splitChunks(text: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += CHUNK_CHARS) out.push(text.slice(i, i + CHUNK_CHARS));
  return out;
}

export type CheckpointsRepo = ReturnType<typeof checkpointsRepo>;
export type { CheckpointMetadata };
