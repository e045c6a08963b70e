/**
 * The repositories' atomic flows on both Table adapters: the same store code over the
 * local file table and over DynamoDB Local, so the conditions and transactions the
 * repositories rely on are proven on the real DynamoDB emulator too.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createStore, memberItem, type Store } from '@svc/core/store/index';
import { tableFingerprintStore } from '@svc/core/store/fingerprints';
import { systemClock } from '@svc/core/ports/clock';
import { AppError } from '@svc/core/errors';
import type { Table } from '@svc/core/ports/table';
import { FileTable } from '../../packages/functions/src/local/file-table.ts';
import { useDynamoDbLocal } from '../support/dynamodb-local.ts';

const ddb = useDynamoDbLocal('repos');
const adapters: Array<[string, () => Promise<Table>]> = [
  ['FileTable', async () => new FileTable()],
  ['DynamoDbTable', () => ddb.freshTable()],
];

const code = async (p: Promise<unknown>) => {
  try {
    await p;
    return 'ok';
  } catch (err) {
    return err instanceof AppError ? err.code : (err as Error).message;
  }
};

for (const [name, makeTable] of adapters) {
  describe(`repositories on ${name}`, () => {
    let store: Store;
    beforeAll(async () => {
      store = createStore(await makeTable(), systemClock);
    });

    it('organization slugs and user emails are unique, and a failed create leaves nothing', async () => {
      const admin = { userId: 'u-1', email: 'a@example.com' };
      const first = await store.organizations.create({ name: 'Acme', slug: 'acme' }, admin);
      expect(await code(store.organizations.create({ name: 'Other', slug: 'acme' }, admin))).toBe('CONFLICT');
      expect(await store.members.listForUser('u-1')).toHaveLength(1);
      expect((await store.organizations.get(first.organization.id))?.slug).toBe('acme');

      await store.users.create({ email: 'Same@Example.com', passwordHash: 'h' });
      expect(await code(store.users.create({ email: 'same@example.com', passwordHash: 'h' }))).toBe('CONFLICT');
    });

    it('an automation delivery is claimed once, answered by its claimant only, released on failure, and a lapsed claim can be taken over', async () => {
      const deliveries = store.automationIntegrations;
      expect(await deliveries.claim('org-1', 'int-1', 'd-1', 'tok-a')).toBe(true);
      expect(await deliveries.claim('org-1', 'int-1', 'd-1', 'tok-b')).toBe(false);
      expect(await deliveries.handled('int-1', 'd-1')).toBe('pending');
      expect(await deliveries.markHandled('org-1', 'int-1', 'd-1', { http_status: 201, answer: { by: 'b' } }, 'tok-b')).toBe(false);
      expect(await deliveries.markHandled('org-1', 'int-1', 'd-1', { http_status: 201, answer: { by: 'a' } }, 'tok-a')).toBe(true);
      expect(await deliveries.handled('int-1', 'd-1')).toEqual({ http_status: 201, answer: { by: 'a' } });
      expect(await deliveries.claim('org-1', 'int-1', 'd-1', 'tok-c')).toBe(false);

      expect(await deliveries.claim('org-1', 'int-1', 'd-2', 'tok-a')).toBe(true);
      await deliveries.release('int-1', 'd-2', 'tok-other');
      expect(await deliveries.handled('int-1', 'd-2')).toBe('pending');
      await deliveries.release('int-1', 'd-2', 'tok-a');
      expect(await deliveries.handled('int-1', 'd-2')).toBeUndefined();

      // A claim taken 20 minutes ago (its request died) has lapsed: the next copy takes it over, and the old claimant can no longer answer.
      const past = createStore(store.table, { now: () => new Date(Date.now() - 20 * 60_000) });
      expect(await past.automationIntegrations.claim('org-1', 'int-1', 'd-3', 'tok-dead')).toBe(true);
      expect(await deliveries.handled('int-1', 'd-3')).toBeUndefined();
      expect(await deliveries.claim('org-1', 'int-1', 'd-3', 'tok-next')).toBe(true);
      expect(await deliveries.markHandled('org-1', 'int-1', 'd-3', { http_status: 201, answer: {} }, 'tok-dead')).toBe(false);
    });

    it('a revoked API key is gone from the auth lookup at once', async () => {
      const key = await store.apiKeys.create({ organizationId: 'org-1', name: 'k', prefix: 'svc_sk_abcd', hash: `hash-${name}`, permissions: ['read'], createdBy: 'u-1' });
      expect((await store.apiKeys.findByHash(`hash-${name}`))?.id).toBe(key.id);
      await store.apiKeys.revoke('org-1', key.id);
      expect(await store.apiKeys.findByHash(`hash-${name}`)).toBeUndefined();
      expect((await store.apiKeys.list('org-1', 10)).items[0].revoked_at).not.toBeNull();
    });

    it('an invitation is accepted once', async () => {
      const { organization } = await store.organizations.create({ name: 'Invites' }, { userId: 'owner', email: 'o@example.com' });
      const inv = await store.invitations.create(organization.id, { email: 'b@example.com', role: 'member', invitedBy: 'owner', tokenHash: `tok-${name}` });
      const found = await store.invitations.findByToken(`tok-${name}`);
      expect(found?.id).toBe(inv.id);
      const member = { id: 'm-1', organization_id: organization.id, user_id: 'u-b', email: 'b@example.com', role: 'member' as const, status: 'active' as const, created_at: new Date().toISOString() };
      await store.invitations.accept(`tok-${name}`, found!, { userId: 'u-b', email: 'b@example.com' }, memberItem(member));
      expect(await code(store.invitations.accept(`tok-${name}`, found!, { userId: 'u-b', email: 'b@example.com' }, memberItem(member)))).toBe('NOT_FOUND');
      expect((await store.members.get(organization.id, 'u-b'))?.role).toBe('member');
    });

    it('the last admin cannot be demoted or removed', async () => {
      const { organization } = await store.organizations.create({ name: 'Solo' }, { userId: 'solo', email: 's@example.com' });
      expect(await code(store.members.setRole(organization.id, 'solo', 'viewer'))).toBe('CONFLICT');
      expect(await code(store.members.remove(organization.id, 'solo'))).toBe('CONFLICT');
    });

    it('test template names are unique per organization regardless of case; a rename moves the claim', async () => {
      const t = { description: null, type: 'api' as const, parameters: [], steps: [], assertions: [], priority: 'medium' as const, tags: [], created_by: 'user:u' };
      const a = await store.testTemplates.create('org-t', { ...t, name: 'Smoke' });
      expect(await code(store.testTemplates.create('org-t', { ...t, name: ' smoke' }))).toBe(' smoke'); // TemplateNameTaken, naming the name asked for
      await store.testTemplates.create('org-other', { ...t, name: 'smoke' }); // another organization: free
      const b = await store.testTemplates.create('org-t', { ...t, name: 'Other' });
      expect(await code(store.testTemplates.update('org-t', b, { name: 'SMOKE' }))).toBe('SMOKE');
      await store.testTemplates.update('org-t', a, { name: 'Renamed' });
      expect((await store.testTemplates.create('org-t', { ...t, name: 'smoke' })).name).toBe('smoke'); // the old name is free
      expect((await store.testTemplates.list('org-t')).map((x) => x.name)).toEqual(['Other', 'Renamed', 'smoke']);
      await store.testTemplates.delete('org-t', b.id);
      expect((await store.testTemplates.list('org-t')).map((x) => x.name)).toEqual(['Renamed', 'smoke']);
    });

    it('a refresh token is consumed once', async () => {
      await store.refreshTokens.save(`r-${name}`, 'u-1', 60);
      expect(await store.refreshTokens.consume(`r-${name}`)).toEqual({ userId: 'u-1' });
      await store.refreshTokens.save(`a-${name}`, 'u-1', 60, { clientId: 'my-agent', grantId: 'g-1' });
      expect(await store.refreshTokens.consume(`a-${name}`)).toEqual({ userId: 'u-1', agent: { clientId: 'my-agent', grantId: 'g-1' } });
      expect(await store.refreshTokens.consume(`r-${name}`)).toBeUndefined();
    });

    it('a device authorization: its user code is unique, it is decided once and exchanged once', async () => {
      const base = { user_code: `BCDF-${name === 'FileTable' ? 'GHJK' : 'GHJL'}`, client_id: 'agent', scope: null, status: 'pending' as const, user_id: null, created_at: new Date().toISOString(), expires_at: new Date(Date.now() + 600_000).toISOString(), interval: 5, last_polled_at: null };
      const devices = store.deviceAuthorizations;
      expect(await devices.create({ ...base, device_code_hash: `d1-${name}` })).toBe(true);
      expect(await devices.create({ ...base, device_code_hash: `d2-${name}` })).toBe(false); // same user code
      expect(await devices.get(`d2-${name}`)).toBeUndefined(); // nothing of the refused one was written
      expect(await devices.consume({ ...base, device_code_hash: `d1-${name}` })).toBe(false); // not approved yet
      expect((await devices.decide(`d1-${name}`, 'approved', 'u-1'))?.status).toBe('approved');
      expect(await devices.decide(`d1-${name}`, 'denied', 'u-2')).toBeUndefined();
      await devices.recordPoll(`d1-${name}`, 1234, 10);
      const found = await devices.findByUserCode(base.user_code);
      expect(found).toMatchObject({ status: 'approved', user_id: 'u-1', last_polled_at: 1234, interval: 10 });
      expect(await devices.consume(found!)).toBe(true);
      expect(await devices.consume(found!)).toBe(false);
      expect(await devices.findByUserCode(base.user_code)).toBeUndefined();
      await devices.recordPoll(`d1-${name}`, 5678, 5); // after the exchange: a no-op, not an error
      expect(await devices.get(`d1-${name}`)).toBeUndefined();
    });

    it('a project\'s runs list newest first, and from a given run back', async () => {
      const project = `01900000-0000-7000-8000-0000000000${name === 'FileTable' ? '10' : '11'}`;
      const runs = [];
      for (const n of [1, 2, 3]) runs.push(await store.testRuns.create('org-l', { project_id: project, trigger: 'api', thread_id: `list-${name}-${n}` }));
      expect((await store.testRuns.listForProject(project, 10)).items.map((r) => r.id)).toEqual([runs[2].id, runs[1].id, runs[0].id]);
      expect((await store.testRuns.listForProject(project, 10, undefined, runs[1].id)).items.map((r) => r.id)).toEqual([runs[1].id, runs[0].id]);
      const first = await store.testRuns.listForProject(project, 1, undefined, runs[2].id);
      expect((await store.testRuns.listForProject(project, 5, first.next_cursor!, runs[2].id)).items.map((r) => r.id)).toEqual([runs[1].id, runs[0].id]);
    });

    it('a run result is recorded once per test and attempt; thread ids are unique', async () => {
      const run = await store.testRuns.create('org-r', { project_id: '01900000-0000-7000-8000-000000000001', trigger: 'api', thread_id: `thread-${name}` });
      expect(await code(store.testRuns.create('org-r', { project_id: '01900000-0000-7000-8000-000000000001', trigger: 'api', thread_id: `thread-${name}` }))).toBe('CONFLICT');
      const result = { test_id: '01900000-0000-7000-8000-000000000002', test_run_id: run.id, status: 'passed' as const, duration_ms: 5, error_message: null, screenshots: [], metadata: {} };
      expect(await store.testRuns.recordResult('org-r', result)).toBe(true);
      expect(await store.testRuns.recordResult('org-r', result)).toBe(false);
      expect(await store.testRuns.recordResult('org-r', { ...result, attempt: 2 })).toBe(true);
      expect(await store.testRuns.results('org-r', run.id)).toHaveLength(2);
      const done = await store.testRuns.setStatus('org-r', run.id, 'running', {}, 'pending');
      expect(done.status).toBe('running');
      expect(await code(store.testRuns.setStatus('org-r', run.id, 'completed', {}, 'pending'))).toBe('CONFLICT');
      expect(run).not.toHaveProperty('source');
    });

    it("a run's source (nulls and the nested pull request) reads back as written, listed too", async () => {
      const source = { provider: 'github' as const, repository: 'acme/shop', branch: 'feature/x', commit_sha: null, pull_request: { number: 12, base_branch: 'main' } };
      const projectId = '01900000-0000-7000-8000-0000000000aa';
      const run = await store.testRuns.create('org-r', { project_id: projectId, trigger: 'vcs', source });
      expect((await store.testRuns.get('org-r', run.id))!.source).toEqual(source);
      const moved = await store.testRuns.setStatus('org-r', run.id, 'running', {}, 'pending');
      expect(moved.source).toEqual(source);
      expect((await store.testRuns.listForProject(projectId, 10)).items.map((r) => r.source)).toEqual([source]);
    });

    it('fingerprints keep the latest per test step, per organization', async () => {
      const a = tableFingerprintStore(store.table, 'org-fa');
      await a.save('t1', { 0: { tag: 'input', id: 'email' }, 2: { tag: 'button', text: 'Go' } });
      await a.save('t1', { 2: { tag: 'button', text: 'Go now' } });
      expect(await a.get('t1')).toEqual({ 0: { tag: 'input', id: 'email' }, 2: { tag: 'button', text: 'Go now' } });
      expect(await tableFingerprintStore(store.table, 'org-fb').get('t1')).toEqual({});
      // An extract step's fields each have their own, under `<step>.<field>`, beside the step's.
      await a.save('t1', { '3.total': { tag: 'td', text: '12.50' }, '3.order_id': { tag: 'span', id: 'order' } });
      await a.save('t1', { '3.total': { tag: 'td', text: '13.00' } });
      expect(await a.get('t1')).toEqual({ 0: { tag: 'input', id: 'email' }, 2: { tag: 'button', text: 'Go now' }, '3.total': { tag: 'td', text: '13.00' }, '3.order_id': { tag: 'span', id: 'order' } });
    });

    it('projects and tests list newest first and never cross organizations', async () => {
      const p1 = await store.projects.create('org-x', { name: 'first' });
      const p2 = await store.projects.create('org-x', { name: 'second' });
      await store.projects.create('org-y', { name: 'other tenant' });
      expect((await store.projects.list('org-x', 10)).items.map((p) => p.id)).toEqual([p2.id, p1.id]);
      expect(await store.projects.get('org-y', p1.id)).toBeUndefined();
      expect(await code(store.projects.update('org-y', p1.id, { name: 'stolen' }))).toBe('NOT_FOUND');
      const t = await store.tests.create('org-x', { project_id: p1.id, name: 't', description: null, type: 'api', steps: [], assertions: [], priority: 'medium', tags: [] });
      expect((await store.tests.list('org-x', { projectId: p1.id, limit: 10 })).items.map((x) => x.id)).toEqual([t.id]);
      expect(await store.tests.get('org-y', t.id)).toBeUndefined();
    });
  });
}
