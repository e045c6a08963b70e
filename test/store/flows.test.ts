/**
 * Flows on both Table adapters: a name is claimed in the flow's own transaction, so on
 * DynamoDB Local as on the file table two flows of a project never share a name (regardless
 * of case), not even when created at once; a rename moves the claim; deleting frees it;
 * another organization's id resolves to nothing.
 */
import { describe, expect, it } from 'vitest';
import { createStore, type Store } from '@svc/core/store/index';
import { FlowNameTaken } from '@svc/core/store/flows';
import { systemClock } from '@svc/core/ports/clock';
import type { Table } from '@svc/core/ports/table';
import { FileTable } from '../../packages/functions/src/local/file-table.ts';
import { useDynamoDbLocal } from '../support/dynamodb-local.ts';

const ddb = useDynamoDbLocal('flows');
const adapters: Array<[string, () => Promise<Table>]> = [
  ['FileTable', async () => new FileTable()],
  ['DynamoDbTable', () => ddb.freshTable()],
];

const ORG = 'org-flows';
const PROJECT = '0190a000-0000-7000-8000-0000000000f1';
const newFlow = (store: Store, name: string, org = ORG) =>
  store.flows.create(org, { project_id: PROJECT, name, description: null, parameters: [], steps: [{ type: 'goto', url: '/' }], created_by: 'user:u-1' });

for (const [name, makeTable] of adapters) {
  describe(`flows on ${name}`, () => {
    it('of two concurrent creates of one name (different case) exactly one succeeds', async () => {
      const store = createStore(await makeTable(), systemClock);
      const outcomes = await Promise.allSettled([newFlow(store, 'Sign in'), newFlow(store, 'sign IN')]);
      expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
      const refused = outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult;
      expect(refused.reason).toBeInstanceOf(FlowNameTaken);
      expect((await store.flows.listAll(ORG, PROJECT)).map((f) => f.name)).toHaveLength(1);
    });

    it('a rename moves the claim; deleting frees the name; another organization sees nothing', async () => {
      const store = createStore(await makeTable(), systemClock);
      const a = await newFlow(store, 'open admin');
      const b = await newFlow(store, 'sign in');
      await expect(store.flows.update(ORG, b.id, { name: 'Open Admin' })).rejects.toBeInstanceOf(FlowNameTaken);
      expect((await store.flows.get(ORG, b.id))!.name).toBe('sign in');
      expect((await store.flows.update(ORG, b.id, { name: 'log in', steps: [{ type: 'goto', url: '/login' }] }))!.name).toBe('log in');
      // The old name is free again, the new one taken.
      expect((await newFlow(store, 'Sign In')).name).toBe('Sign In');
      await expect(newFlow(store, 'LOG IN')).rejects.toBeInstanceOf(FlowNameTaken);
      expect(await store.flows.delete(ORG, a.id)).toMatchObject({ name: 'open admin' });
      expect((await newFlow(store, 'open admin')).name).toBe('open admin');
      expect((await store.flows.listAll(ORG, PROJECT)).map((f) => f.name)).toEqual(['log in', 'open admin', 'Sign In']);
      expect(await store.flows.get('another-org', b.id)).toBeUndefined();
      expect(await store.flows.listAll('another-org', PROJECT)).toEqual([]);
    });
  });
}
