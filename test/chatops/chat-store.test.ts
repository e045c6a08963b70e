/**
 * The chat integrations' and replies' records on both Table adapters (the local file
 * table and DynamoDB Local), sealed with the local key-file cipher: how a command finds
 * its integration by workspace (and the any-workspace bucket) across organizations, the
 * signing secret and response_url sealed at rest, a reply claimed once, and the reply
 * service skipping a response_url past its 30 minutes (logged as expired, nothing posted)
 * while posting one still valid to a double of Slack's response_url.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStore, type Store } from '@svc/core/store/index';
import { keys } from '@svc/core/store/keys';
import { uuidv7 } from '@svc/core/ids';
import { envelopeCipher } from '@svc/core/secrets/envelope';
import { chatReplyService } from '@svc/core/services/chat-replies';
import { RESPONSE_URL_VALID_MS } from '@svc/core/services/chat-commands';
import type { Clock } from '@svc/core/ports/clock';
import type { Table } from '@svc/core/ports/table';
import type { Logger } from '@svc/core/ports/logger';
import { FileTable } from '../../packages/functions/src/local/file-table.ts';
import { localDataKeys } from '../../packages/functions/src/secrets/local-data-keys.ts';
import { useDynamoDbLocal } from '../support/dynamodb-local.ts';
import { startResponseUrlDouble, type ResponseUrlDouble } from './support/slack.ts';

const ddb = useDynamoDbLocal('chatops');
const adapters: Array<[string, () => Promise<Table>]> = [
  ['FileTable', async () => new FileTable()],
  ['DynamoDbTable', () => ddb.freshTable()],
];

let slack: ResponseUrlDouble;
beforeAll(async () => {
  slack = await startResponseUrlDouble();
});
afterAll(async () => slack?.stop());

for (const [adapter, makeTable] of adapters) {
  describe(`chat records on ${adapter}`, () => {
    // Today, not a fixed date: stored replies carry a 7-day TTL that the tables honour against the real clock,
    // so a fixed date made these tests fail a week after it was written.
    let time = Date.now();
    const clock: Clock = { now: () => new Date(time) };
    let store: Store;
    const orgA = uuidv7();
    const orgB = uuidv7();
    const ids: Record<string, string> = {};
    const secretOf = (name: string) => `signing-secret-${name}-0123456789abcdef`;
    const newIntegration = (projectId: string, teamId: string | null, name: string) => ({ provider: 'slack' as const, project_id: projectId, team_id: teamId, allowed_user_ids: [], enabled: true, signing_secret: secretOf(name), signing_secret_hint: '…cdef', created_by: null });
    const candidateIds = async (team: string) => (await store.chatIntegrations.candidates('slack', team)).map((c) => `${c.organizationId === orgA ? 'A' : 'B'}:${c.integration.id}`).sort();

    afterAll(async () => {
      await store?.table.close?.();
    });

    it('finds a command\'s integrations by workspace, and those taking any workspace, across organizations', async () => {
      store = createStore(await makeTable(), clock, { cipher: envelopeCipher(localDataKeys(randomBytes(32))) });
      const projectA = uuidv7();
      const projectB = uuidv7();
      ids.a1 = (await store.chatIntegrations.create(orgA, newIntegration(projectA, 'T0001', 'a1'))).id;
      time += 1000;
      ids.aAny = (await store.chatIntegrations.create(orgA, newIntegration(projectA, null, 'aAny'))).id;
      ids.b2 = (await store.chatIntegrations.create(orgB, newIntegration(projectB, 'T0002', 'b2'))).id;

      expect(await candidateIds('T0001')).toEqual([`A:${ids.a1}`, `A:${ids.aAny}`].sort());
      expect(await candidateIds('T0002')).toEqual([`A:${ids.aAny}`, `B:${ids.b2}`].sort());
      expect(await candidateIds('T0999')).toEqual([`A:${ids.aAny}`]);
      expect((await store.chatIntegrations.list(orgA, { limit: 10 })).items.map((i) => i.id)).toEqual([ids.aAny, ids.a1]);
      expect((await store.chatIntegrations.list(orgB, { limit: 10 })).items.map((i) => i.id)).toEqual([ids.b2]);
      expect(await store.chatIntegrations.get(orgB, ids.a1)).toBeUndefined();
    });

    it('keeps the signing secret sealed, opens it on request, and re-seals a new one', async () => {
      const raw = await store.table.get(keys.chatIntegration(orgA, ids.a1));
      expect(raw!.signing_secret).toMatchObject({ svc_sealed: 1 });
      expect(JSON.stringify(raw)).not.toContain(secretOf('a1'));
      const stored = (await store.chatIntegrations.get(orgA, ids.a1))!;
      expect(await store.chatIntegrations.secrets(orgA, stored)).toEqual({ signing_secret: secretOf('a1') });

      const updated = (await store.chatIntegrations.update(orgA, ids.a1, { signing_secret: secretOf('a1-new'), signing_secret_hint: '…new!' }))!;
      expect(await store.chatIntegrations.secrets(orgA, updated)).toEqual({ signing_secret: secretOf('a1-new') });
      expect(JSON.stringify(await store.table.get(keys.chatIntegration(orgA, ids.a1)))).not.toContain(secretOf('a1-new'));
    });

    it('moves an integration to its new workspace, and forgets a deleted one', async () => {
      await store.chatIntegrations.update(orgA, ids.a1, { team_id: 'T0003' });
      expect(await candidateIds('T0001')).toEqual([`A:${ids.aAny}`]);
      expect(await candidateIds('T0003')).toEqual([`A:${ids.a1}`, `A:${ids.aAny}`].sort());
      await store.chatIntegrations.update(orgA, ids.aAny, { team_id: 'T0002' }); // from any workspace to one
      expect(await candidateIds('T0999')).toEqual([]);
      expect(await candidateIds('T0002')).toEqual([`A:${ids.aAny}`, `B:${ids.b2}`].sort());
      expect((await store.chatIntegrations.delete(orgB, ids.b2))?.id).toBe(ids.b2);
      expect(await candidateIds('T0002')).toEqual([`A:${ids.aAny}`]);
      expect(await store.chatIntegrations.delete(orgB, ids.b2)).toBeUndefined();
    });

    /** A finished run of a slash command: its reply recorded first (as the command does), then the run created and ended. */
    async function finishedRun(validFor: number, path: string) {
      const projectId = (await store.projects.create(orgA, { name: `shop ${path}` })).id;
      const threadId = `chat-${ids.a1}-${uuidv7()}`;
      await store.chatReplies.record(orgA, { thread_id: threadId, integration_id: ids.a1, user_id: 'U0ADA', channel_id: 'C0QA', valid_until: new Date(time + validFor).toISOString(), response_url: `${slack.url}${path}` });
      const run = await store.testRuns.create(orgA, { project_id: projectId, thread_id: threadId, trigger: 'chat', total_tests: 0 });
      await store.testRuns.setStatus(orgA, run.id, 'running', { started_at: clock.now().toISOString() });
      await store.testRuns.setStatus(orgA, run.id, 'completed', { completed_at: clock.now().toISOString() });
      return { runId: run.id, threadId };
    }

    it('keeps the response_url sealed, and a reply is claimed once', async () => {
      const { threadId } = await finishedRun(RESPONSE_URL_VALID_MS, `/commands/claim-${adapter}`);
      const raw = await store.table.get(keys.chatRunReply(orgA, threadId));
      expect(raw!.response_url).toMatchObject({ svc_sealed: 1 });
      expect(JSON.stringify(raw)).not.toContain(slack.url);
      const reply = await store.chatReplies.get(orgA, threadId);
      expect(reply).toMatchObject({ status: 'pending', user_id: 'U0ADA', integration_id: ids.a1 });
      expect(JSON.stringify(reply)).not.toContain(slack.url);
      expect(await store.chatReplies.responseUrl(orgA, threadId)).toBe(`${slack.url}/commands/claim-${adapter}`);
      expect(await store.chatReplies.claim(orgA, threadId)).toBe(true);
      expect(await store.chatReplies.claim(orgA, threadId)).toBe(false);
    });

    it('posts a run\'s outcome while the response_url is valid, once; past its 30 minutes it is logged as expired and nothing is posted', async () => {
      const logs: Array<{ message: string; fields?: Record<string, unknown> }> = [];
      const note = (message: string, fields?: Record<string, unknown>) => void logs.push({ message, fields });
      const logger: Logger = { debug: note, info: note, warn: note, error: note };
      const replies = chatReplyService({ store, clock, logger, publicUrl: 'https://svc.example.com/' });

      const fresh = await finishedRun(RESPONSE_URL_VALID_MS, `/commands/fresh-${adapter}`);
      await replies.runFinished(orgA, fresh.runId);
      await replies.runFinished(orgA, fresh.runId); // a report node that runs again posts nothing more
      const posts = slack.received.filter((p) => p.path === `/commands/fresh-${adapter}`);
      expect(posts).toHaveLength(1);
      expect(posts[0].body).toMatchObject({ response_type: 'in_channel', text: `svc: shop /commands/fresh-${adapter} run ${fresh.runId} passed — 0 passed, 0 failed of 0 tests` });
      expect(JSON.stringify(posts[0].body.blocks)).toContain(`<https://svc.example.com/api/reports/${fresh.runId}?format=html|HTML report>`);
      expect(await store.chatReplies.get(orgA, fresh.threadId)).toMatchObject({ status: 'delivered', attempts: 1, http_status: 200 });

      const late = await finishedRun(RESPONSE_URL_VALID_MS, `/commands/late-${adapter}`);
      time += RESPONSE_URL_VALID_MS + 1000; // the run ended 30 minutes and a second after the command
      await replies.runFinished(orgA, late.runId);
      expect(slack.received.filter((p) => p.path === `/commands/late-${adapter}`)).toEqual([]);
      expect(await store.chatReplies.get(orgA, late.threadId)).toMatchObject({ status: 'expired', attempts: 0, error: expect.stringMatching(/after the response_url expired/) });
      expect(logs.find((l) => /outlived its Slack response_url/.test(l.message))?.fields).toMatchObject({ run_id: late.runId, integration_id: ids.a1 });
    });
  });
}
