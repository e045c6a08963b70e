import { mkdir, readFile, writeFile, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { createStore } from '@svc/core/store/index';
import { queryAll } from '@svc/core/store/context';
import { systemClock } from '@svc/core/ports/clock';
import type { Item } from '@svc/core/ports/table';
import { storeHealingKnowledge } from '@svc/core/healing/service/store-knowledge';
import { localEmbedder, type Embedder } from '@svc/core/healing/service/embedder';
import type { HealingKnowledge } from '@svc/core/healing/service/knowledge';
import { FileTable } from '../local/file-table.ts';

/** `svc run` has no organization or project: its knowledge lives under these fixed ids. */
export const LOCAL_ORGANIZATION_ID = '00000000-0000-4000-8000-000000000001';
export const LOCAL_PROJECT_ID = '00000000-0000-4000-8000-000000000002';

/**
 * Healing knowledge for `svc run` (no server): the same patterns, 7-day cache and memory
 * as the server (storeHealingKnowledge over an in-memory table), snapshotted to
 * <stateDir>/healing.json after every change and loaded on first use. Concurrent runs
 * sharing one state dir do not corrupt the file (atomic rename); the last to write wins.
 * An unreadable file starts empty: healing then ranks afresh.
 */
export function fileHealingKnowledge(stateDir: string, embedder: Embedder = localEmbedder()): HealingKnowledge {
  const path = join(stateDir, 'healing.json');
  let ready: Promise<{ inner: HealingKnowledge; table: FileTable }> | undefined;
  const open = () =>
    (ready ??= (async () => {
      const table = new FileTable(undefined, { clock: systemClock });
      try {
        const data = JSON.parse(await readFile(path, 'utf8')) as { version: number; items: Item[] };
        for (const item of data.items ?? []) await table.put(item);
      } catch {
        // none yet, or unreadable
      }
      const inner = storeHealingKnowledge({ store: createStore(table, systemClock), organizationId: LOCAL_ORGANIZATION_ID, projectId: LOCAL_PROJECT_ID, embedder });
      return { inner, table };
    })());

  // Parallel workers of one run share this object: snapshots are written one at a time.
  let saving: Promise<void> = Promise.resolve();
  const save = (table: FileTable) => (saving = saving.then(() => snapshot(table), () => snapshot(table)));

  async function snapshot(table: FileTable) {
    const org = `ORG#${LOCAL_ORGANIZATION_ID}`;
    const items = [
      ...(await queryAll(table, { pk: org, skPrefix: 'HEAL' })),
      ...(await queryAll(table, { pk: `${org}#HEALCACHE` })),
      ...(await queryAll(table, { pk: `${org}#MEMORY` })),
    ];
    await mkdir(stateDir, { recursive: true });
    const tmp = `${path}.${process.pid}.tmp`;
    await writeFile(tmp, JSON.stringify({ version: 1, items }) + '\n');
    await rename(tmp, path);
  }

  return {
    async lookup(q) {
      return (await open()).inner.lookup(q);
    },
    async cachedFixes() {
      return (await open()).inner.cachedFixes!();
    },
    async recordSuccess(q, heal) {
      const { inner, table } = await open();
      await inner.recordSuccess(q, heal);
      await save(table);
    },
    async recordFailure(q, fix, reason) {
      const { inner, table } = await open();
      await inner.recordFailure(q, fix, reason);
      await save(table);
    },
    async completed(q, outcome) {
      const { inner, table } = await open();
      await inner.completed?.(q, outcome);
      await save(table);
    },
  };
}
