/**
 * The knowledge worker behind the consumer runner, on the local file table and on DynamoDB
 * Local: an ingestion is analysed once, kept, announced and its upload removed; what it
 * cannot analyse is a failed ingestion with the reason (a stuck folder read included, by its
 * deadline); what is worth retrying (storage) or foreign (another tenant's project) is a
 * dead letter, and the record waits.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createStore, type Store } from '@svc/core/store/index';
import { systemClock } from '@svc/core/ports/clock';
import { silentLogger } from '@svc/core/ports/logger';
import type { Blobs } from '@svc/core/ports/blobs';
import type { Table } from '@svc/core/ports/table';
import { ConsumerRunner } from '@svc/core/events/consumer';
import { codebaseIngested, eventSources } from '@svc/core/events/producers';
import type { CodebaseIngestion } from '@svc/core/contracts/codebase-ingestions';
import { ingestionBlobKeys } from '@svc/core/knowledge/blob-keys';
import { knowledgeWorker, type KnowledgeWorkerDeps } from '@svc/core/knowledge/knowledge-worker';
import { FileTable } from '../../packages/functions/src/local/file-table.ts';
import { FsBlobs } from '../../packages/functions/src/local/fs-blobs.ts';
import { useDynamoDbLocal } from '../support/dynamodb-local.ts';
import { RecordingPublisher } from '../events/support/fixtures.ts';

const ddb = useDynamoDbLocal('knowledge');
const adapters: Array<[string, () => Promise<Table>]> = [
  ['FileTable', async () => new FileTable()],
  ['DynamoDbTable', () => ddb.freshTable()],
];

let blobDir: string;
beforeAll(async () => {
  blobDir = await mkdtemp(join(tmpdir(), 'svc-knowledge-'));
});
afterAll(async () => {
  await rm(blobDir, { recursive: true, force: true });
});

const files = [{ path: 'app.js', content: "const app = require('express')();\napp.get('/health', (q, r) => r.send('ok'));\n" }];

for (const [name, makeTable] of adapters) {
  describe(`knowledge worker on ${name}`, () => {
    let store: Store;
    let table: Table;
    let blobs: Blobs;
    let org: string;
    let projectId: string;

    beforeAll(async () => {
      table = await makeTable();
      store = createStore(table, systemClock);
      blobs = new FsBlobs(join(blobDir, name));
      const made = await store.organizations.create({ name: 'Acme', slug: `acme-${name.toLowerCase()}` }, { userId: 'u-1', email: 'a@example.com' });
      org = made.organization.id;
      projectId = (await store.projects.create(org, { name: 'shop' })).id;
    });

    const runner = (deps: Partial<KnowledgeWorkerDeps> = {}) => {
      const publisher = new RecordingPublisher();
      const r = new ConsumerRunner(knowledgeWorker({ blobs, ...deps }), { table, publisher, logger: silentLogger, clock: systemClock });
      return { publisher, send: (e: unknown) => r.process({ value: JSON.stringify(e) }) };
    };

    /** What the API does: the record, the upload, then the event. */
    async function queued(source: CodebaseIngestion['source'], upload = true, project = projectId) {
      const id = store.codebaseIngestions.newId();
      if (source.kind === 'inline' && upload) await blobs.put(ingestionBlobKeys.files(org, id), JSON.stringify(files));
      await store.codebaseIngestions.create(org, {
        id, project_id: project, status: 'queued', source, codebase_path: source.path ?? 'inline upload', commit_sha: null, include_content: false,
        created_at: new Date().toISOString(), created_by: 'user:u-1', finished_at: null, error: null, summary: null, surface_count: null, partial: null,
      });
      const event = codebaseIngested({ source: eventSources.api, tenant_id: org, correlation_id: 'req-1' }, { project_id: project, codebase_path: source.path ?? 'inline upload', ingestion_id: id });
      return { id, event };
    }

    it('analyses an upload once, keeps it, announces it and removes the upload', async () => {
      const { publisher, send } = runner();
      const { id, event } = await queued({ kind: 'inline', file_count: 1 });
      expect(await send(event)).toMatchObject({ status: 'processed' });
      expect(await store.codebaseIngestions.get(org, id)).toMatchObject({ status: 'analyzed', surface_count: 1, partial: false, error: null });
      expect(publisher.events).toHaveLength(1);
      expect(publisher.events[0]).toMatchObject({ event_type: 'codebase.analyzed', source: 'svc.knowledge-worker', correlation_id: 'req-1', payload: { ingestion_id: id, surface_count: 1 } });
      expect(await blobs.get(ingestionBlobKeys.files(org, id))).toBeUndefined();
      const kept = JSON.parse(new TextDecoder().decode((await blobs.get(ingestionBlobKeys.analysis(org, id)))!.body));
      expect(kept.surfaces).toEqual([expect.objectContaining({ method: 'GET', path: '/health' })]);

      // Redelivered: the runner skips it. Announced again under a new event: the record is decided already.
      expect(await send(event)).toMatchObject({ status: 'duplicate' });
      expect(await send({ ...event, event_id: crypto.randomUUID() })).toMatchObject({ status: 'processed' });
      expect(publisher.events).toHaveLength(1);
      expect(await store.codebaseIngestions.latestAnalyzed(projectId)).toMatchObject({ id });
    });

    it('fails an ingestion it cannot analyse, with the reason: no folders here, or a read past its deadline', async () => {
      const noFolders = await queued({ kind: 'path', path: '/srv/repo' });
      expect(await runner().send(noFolders.event)).toMatchObject({ status: 'processed' });
      expect(await store.codebaseIngestions.get(org, noFolders.id)).toMatchObject({ status: 'failed', error: expect.stringContaining('reads no folders'), summary: null });

      const stuck = await queued({ kind: 'path', path: '/srv/slow' });
      const { send, publisher } = runner({ timeoutMs: 4_000, readFolder: () => new Promise(() => {}) });
      expect(await send(stuck.event)).toMatchObject({ status: 'processed' });
      expect(await store.codebaseIngestions.get(org, stuck.id)).toMatchObject({ status: 'failed', error: expect.stringContaining("longer than the knowledge worker's limit") });
      expect(publisher.events).toEqual([]);
    }, 20_000);

    it('dead-letters what is worth retrying or not its tenant\'s, and the record waits', async () => {
      const broken: Blobs = { ...blobs, get: (k) => blobs.get(k), put: async () => { throw new Error('S3 is unavailable'); } } as Blobs;
      const { id, event } = await queued({ kind: 'inline', file_count: 1 });
      const { send, publisher } = runner({ blobs: broken });
      expect(await send(event)).toMatchObject({ status: 'dead_lettered' });
      expect(publisher.events).toEqual([expect.objectContaining({ event_type: 'dlq', payload: expect.objectContaining({ error_message: 'S3 is unavailable' }) })]);
      expect(await store.codebaseIngestions.get(org, id)).toMatchObject({ status: 'queued' });
      expect(await blobs.get(ingestionBlobKeys.files(org, id))).toBeDefined(); // kept for the retry
      // Still queued: a restarted local runtime finds it (and only it: decided ones leave the index).
      expect((await store.codebaseIngestions.listQueued(new Date(Date.now() + 1000).toISOString())).map((q) => [q.orgId, q.ingestion.id])).toEqual([[org, id]]);

      // Another producer's event naming a project of another tenant: nothing is created.
      const foreign = codebaseIngested({ source: eventSources.api, tenant_id: org }, { project_id: crypto.randomUUID(), codebase_path: '/srv/repo' });
      expect(await runner().send(foreign)).toMatchObject({ status: 'dead_lettered' });
      expect(await store.codebaseIngestions.get(org, foreign.event_id)).toBeUndefined();
    });

    it("lists a project's ingestions newest first", async () => {
      const page = await store.codebaseIngestions.listForProject(projectId, 2);
      expect(page.items).toHaveLength(2);
      expect(page.items[0].created_at >= page.items[1].created_at).toBe(true);
      const rest = await store.codebaseIngestions.listForProject(projectId, 50, page.next_cursor!);
      expect(page.items.length + rest.items.length).toBe(4); // the foreign event made none
    });
  });
}
