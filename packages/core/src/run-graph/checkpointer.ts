import type { Checkpoint, CheckpointMetadata, CheckpointWrite } from '../contracts/checkpoint.ts';
import type { Clock } from '../ports/clock.ts';
import { MAX_WRITE_BLOB_CHARS, type CheckpointsRepo } from '../store/checkpoints.ts';
import { AppError, notFound } from '../errors.ts';
import { uuidv7 } from '../ids.ts';
import { deserializeState, serializeState, type RunGraphState } from './state.ts';
import { applyWrites, freezeState, storedWrites, type Write } from './writes.ts';

export const ROOT_NS = '';
/** Parallel tests commit on one head; this many lost races in a row means something is wrong. */
const MAX_COMMIT_ATTEMPTS = 200;
/** Threads whose head state is kept parsed in memory (runs in flight in this process). */
const CACHED_THREADS = 32;
/**
 * Every checkpoint whose step is a multiple of this stores the whole state; the others store
 * only their writes (`checkpoint` is ''), and their state is their parent's with those
 * writes applied. A state read from the store is then at most FULL_STATE_EVERY - 1 steps of
 * writes away from a whole one, and a run stores a whole state once per this many commits,
 * not once per commit: the state grows with every result, so storing it at every commit was
 * quadratic in the run's size (memory and disk of the local runtime, items on DynamoDB).
 */
export const FULL_STATE_EVERY = 16;

export interface CommitInput {
  node: string;
  source?: CheckpointMetadata['source'];
  /** Task that produced the writes (the test's index in the plan; 0 for root nodes). */
  taskId?: number;
  /** The writes, computed from the head state they will apply to (re-run after a lost race). */
  writes: (head: RunGraphState) => Write[];
  metadata?: Record<string, unknown>;
}

export interface Committed {
  checkpoint: Checkpoint;
  state: RunGraphState;
  writes: Write[];
}

/**
 * Saves a checkpoint after every node. A commit reads the head, applies the node's
 * writes, and saves the result as the head's child — conditionally, so parallel test
 * executions serialise on the head without a lock (the same code works on DynamoDB,
 * where the writers are separate Lambda invocations).
 */
export function createCheckpointer(repo: CheckpointsRepo, clock: Clock, hooks: { onCommit?: (ms: number) => void } = {}) {
  // The parsed state of the checkpoints this process last saw, per thread. Checkpoints never
  // change once saved, so a cached one is valid exactly while its id is the head: a writer in
  // another process (another Lambda) moves the head and the next load parses from the store.
  // Without it every commit re-parsed and re-validated the whole state, which grows with every
  // test result: quadratic in the run's size. States are frozen (applyWrites), so the cached
  // one is handed out as is.
  const cache = new Map<string, { checkpoint: Checkpoint; state: RunGraphState }>();
  const remember = (threadId: string, checkpoint: Checkpoint, state: RunGraphState) => {
    cache.delete(threadId);
    cache.set(threadId, { checkpoint, state });
    if (cache.size > CACHED_THREADS) cache.delete(cache.keys().next().value!);
  };

  /** The checkpoint and its state, frozen: derive a new state with applyWrites, never change it. */
  async function load(threadId: string, checkpointId?: string): Promise<{ checkpoint: Checkpoint; state: RunGraphState }> {
    const id = checkpointId ?? (await repo.head(threadId, ROOT_NS));
    if (!id) throw notFound('thread');
    const cached = cache.get(threadId);
    if (cached?.checkpoint.checkpoint_id === id) return { ...cached };
    const chain = await repo.lineage(threadId, ROOT_NS, id, { window: FULL_STATE_EVERY, stopAt: cached?.checkpoint.checkpoint_id });
    if (!chain.length) throw notFound('checkpoint');
    const checkpoint = freezeState(chain[0]);
    const state = await stateOf(threadId, chain, cached);
    if (!checkpointId) remember(threadId, checkpoint, state);
    return { checkpoint, state };
  }

  /**
   * The state at chain[0], from its lineage (newest first): the last one's whole state — or,
   * when the walk stopped at the state this process remembers, that one — with the writes of
   * the checkpoints in between applied, oldest first.
   */
  async function stateOf(threadId: string, chain: Checkpoint[], cached: { checkpoint: Checkpoint; state: RunGraphState } | undefined): Promise<RunGraphState> {
    const last = chain.at(-1)!;
    const whole = last.checkpoint !== '';
    if (!whole && (!last.parent_checkpoint_id || last.parent_checkpoint_id !== cached?.checkpoint.checkpoint_id)) {
      throw new AppError('INTERNAL', `checkpoint ${last.checkpoint_id} of thread ${threadId} has neither a state nor a parent`);
    }
    let state = whole ? freezeState(deserializeState(last.checkpoint)) : cached!.state;
    const deltas = whole ? chain.slice(0, -1) : chain;
    const writes = await repo.writesOf(threadId, ROOT_NS, deltas.map((c) => c.checkpoint_id));
    for (let i = deltas.length - 1; i >= 0; i--) state = applyWrites(state, decodeWrites(writes.get(deltas[i].checkpoint_id)!, deltas[i].checkpoint_id));
    return state;
  }

  function build(threadId: string, state: RunGraphState, parent: Checkpoint | null, metadata: CheckpointMetadata, whole: boolean): Checkpoint {
    return {
      thread_id: threadId,
      checkpoint_ns: ROOT_NS,
      checkpoint_id: uuidv7(clock.now().getTime()),
      parent_checkpoint_id: parent?.checkpoint_id ?? null,
      checkpoint: whole ? serializeState(state) : '',
      metadata,
      created_at: clock.now().toISOString(),
    };
  }

  return {
    load,

    /** The first checkpoint of a thread (source "input", or "fork"); parent null. */
    async start(threadId: string, state: RunGraphState, metadata: Partial<CheckpointMetadata> = {}): Promise<Checkpoint> {
      const checkpoint = build(threadId, state, null, { source: 'input', step: -1, node: null, ...metadata }, true);
      if (!(await repo.save({ checkpoint, writes: [], expectedHead: null }))) throw new AppError('CONFLICT', `thread ${threadId} already has checkpoints`);
      return checkpoint;
    },

    /** Applies a node's writes on the head and saves the checkpoint, retrying lost races. */
    async commit(threadId: string, input: CommitInput): Promise<Committed> {
      const t0 = performance.now();
      for (let attempt = 0; attempt < MAX_COMMIT_ATTEMPTS; attempt++) {
        const head = await load(threadId);
        const writes = input.writes(head.state);
        const state = applyWrites(head.state, writes);
        const step = head.checkpoint.metadata.step + 1;
        const stored = storedWrites(writes, input.taskId ?? 0);
        // Whole every FULL_STATE_EVERY steps, and whenever a write is too large to be stored
        // with its value (the state could not be rebuilt from the writes).
        const whole = step % FULL_STATE_EVERY === 0 || stored.some((w) => w.blob.length > MAX_WRITE_BLOB_CHARS);
        const checkpoint = build(threadId, state, head.checkpoint, { source: input.source ?? 'loop', step, node: input.node, ...input.metadata }, whole);
        const saved = await repo.save({ checkpoint, writes: stored, expectedHead: head.checkpoint.checkpoint_id });
        if (saved) {
          remember(threadId, freezeState(checkpoint), state);
          hooks.onCommit?.(performance.now() - t0);
          return { checkpoint, state, writes };
        }
        await new Promise((r) => setTimeout(r, Math.random() * Math.min(50, 2 ** attempt)));
      }
      throw new AppError('CONFLICT', `could not save a checkpoint on thread ${threadId}: the head kept moving`);
    },

    /** Moves the head back to an earlier checkpoint of the thread (replay). */
    async rewind(threadId: string, checkpointId: string): Promise<void> {
      for (let attempt = 0; attempt < MAX_COMMIT_ATTEMPTS; attempt++) {
        const head = await repo.head(threadId, ROOT_NS);
        if (!head) throw notFound('thread');
        if (head === checkpointId || (await repo.moveHead(threadId, ROOT_NS, checkpointId, head))) return;
      }
      throw new AppError('CONFLICT', `could not move the head of thread ${threadId}`);
    },
  };
}

export type Checkpointer = ReturnType<typeof createCheckpointer>;

/** A checkpoint's stored writes as the writes that were applied, in their order. */
function decodeWrites(stored: CheckpointWrite[], checkpointId: string): Write[] {
  return [...stored]
    .sort((a, b) => a.task_id - b.task_id || a.idx - b.idx)
    .map((w) => {
      if (w.type !== 'json') throw new AppError('INTERNAL', `checkpoint ${checkpointId} stores a write of type ${w.type}; its state cannot be rebuilt`);
      const value: unknown = JSON.parse(Buffer.from(w.blob, 'base64').toString('utf8'));
      return (w.channel.startsWith('replace:') ? { channel: 'replace', field: w.channel.slice('replace:'.length), value } : { channel: w.channel, value }) as Write;
    });
}
