/**
 * Rotating a webhook secret in the store, over both table adapters (the local file table
 * and DynamoDB Local, whose condition expressions the race relies on) with the local
 * runtime's real envelope cipher and a clock the test moves: the previous secret verifies
 * until its grace period ends and not a millisecond after; two rotations racing keep the
 * winner's secret as the previous one (none is lost); a secret still in plaintext from
 * before encryption at rest is kept sealed; a current secret that no longer opens is
 * replaced without a grace period.
 */
import { randomBytes } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Table } from '@svc/core/ports/table';
import { createStore, type Store } from '@svc/core/store/index';
import { keys } from '@svc/core/store/keys';
import { envelopeCipher } from '@svc/core/secrets/envelope';
import type { Clock } from '@svc/core/ports/clock';
import { FileTable } from '../../packages/functions/src/local/file-table.ts';
import { localDataKeys } from '../../packages/functions/src/secrets/local-data-keys.ts';
import { useDynamoDbLocal } from '../support/dynamodb-local.ts';

const ORG = '01900000-0000-7000-8000-00000000000a';
const HOUR = 3_600_000;
let now = Date.parse('2026-11-27T08:00:00.000Z');
const clock: Clock = { now: () => new Date(now) };

const ddb = useDynamoDbLocal('rotation');
const adapters: Array<[string, () => Promise<Table>]> = [
  // The tables read TTLs against the test's clock, so the fixed dates never age out.
  ['FileTable', async () => new FileTable(undefined, { clock })],
  ['DynamoDbTable', () => ddb.freshTable({ clock })],
];

let table: Table;
let store: Store;

const automation = (secret: string) => store.automationIntegrations.create(ORG, { name: 'n8n', project_ids: [], enabled: true, secret, secret_hint: `…${secret.slice(-4)}`, created_by: null });
const signing = async (id: string) => store.automationIntegrations.signingSecrets(ORG, (await store.automationIntegrations.get(ORG, id))!);

describe.each(adapters)('rotating a secret in the store on %s', (_name, makeTable) => {
  beforeEach(async () => {
    table = await makeTable();
    store = createStore(table, clock, { cipher: envelopeCipher(localDataKeys(randomBytes(32))) });
  });

  it('keeps the previous secret verifying until the grace period ends, then only the new one', async () => {
    const { id } = await automation('whsec_first');
    const rotated = await store.automationIntegrations.rotateSecret(ORG, id, 'whsec_second', 2);
    expect(rotated).toMatchObject({ secret_hint: '…cond', secret_rotated_at: new Date(now).toISOString(), previous_secret_expires_at: new Date(now + 2 * HOUR).toISOString() });
    expect(await signing(id)).toEqual({ secret: 'whsec_second', previous_secret: 'whsec_first' });

    now += 2 * HOUR - 1;
    expect((await signing(id)).previous_secret).toBe('whsec_first');
    now += 1; // the end is exclusive
    expect(await signing(id)).toEqual({ secret: 'whsec_second', previous_secret: null });
  });

  it('two rotations racing: the loser reads again, so the winner\'s secret becomes the previous one', async () => {
    const { id } = await automation('whsec_first');
    const [a, b] = await Promise.all([
      store.automationIntegrations.rotateSecret(ORG, id, 'whsec_from_a', 24),
      store.automationIntegrations.rotateSecret(ORG, id, 'whsec_from_b', 24),
    ]);
    expect(a && b).toBeTruthy();
    const { secret, previous_secret: previous } = await signing(id);
    // Whichever wrote last, the other's secret is still accepted: neither admin's new secret is lost.
    expect([secret, previous].sort()).toEqual(['whsec_from_a', 'whsec_from_b']);
  });

  it('a plaintext secret from before encryption at rest becomes a sealed previous secret; a plaintext status token is sealed too', async () => {
    const created = await store.vcsIntegrations.create(ORG, { project_id: ORG, provider: 'github', repository: 'acme/old', events: ['push'], branches: [], tags: [], healing_enabled: null, enabled: true, api_url: null, status_context: 'svc', status_token_hint: null, created_by: null, secret: 'x', status_token: null });
    const key = keys.vcsIntegration(ORG, created.id);
    // As a record written before encryption at rest (or restored from then) looks.
    await table.update({ key, set: { secret: 'whsec_plain', status_token: 'ghp_plain' } });

    await store.vcsIntegrations.rotateSecret(ORG, created.id, 'whsec_new', 24);
    const stored = await table.get(key);
    expect(JSON.stringify(stored)).not.toMatch(/whsec_plain|whsec_new|ghp_plain/);
    const integration = (await store.vcsIntegrations.get(ORG, created.id))!;
    expect(await store.vcsIntegrations.signingSecrets(ORG, integration)).toEqual({ secret: 'whsec_new', previous_secret: 'whsec_plain' });
    expect((await store.vcsIntegrations.secrets(ORG, integration)).status_token).toBe('ghp_plain');
  });

  it('a current secret that no longer opens is replaced with no grace period (it verified nothing)', async () => {
    const { id } = await automation('whsec_first');
    const key = keys.automationIntegration(ORG, id);
    // A sealed value copied from another attribute: bound to its own, it does not open here.
    const other = await automation('whsec_other');
    await table.update({ key, set: { secret: (await table.get(keys.automationIntegration(ORG, other.id)))!.secret } });

    const rotated = await store.automationIntegrations.rotateSecret(ORG, id, 'whsec_repaired', 24);
    expect(rotated).toMatchObject({ previous_secret: null, previous_secret_expires_at: null });
    expect(await signing(id)).toEqual({ secret: 'whsec_repaired', previous_secret: null });
  });

  it('an integration that does not exist is undefined (the route says 404)', async () => {
    expect(await store.automationIntegrations.rotateSecret(ORG, '01900000-0000-7000-8000-0000000000ff', 'whsec_x', 24)).toBeUndefined();
  });
});
