import type { Table } from '../ports/table.ts';
import type { Fingerprint } from '../contracts/fingerprint.ts';
import type { FingerprintStore } from '../execution/fingerprint-store.ts';
import { queryAll } from './context.ts';

/** Fingerprints in the table, one item per test step, under the organization's partition family. */
export function tableFingerprintStore(table: Table, orgId: string, now: () => Date = () => new Date()): FingerprintStore {
  const pk = (testId: string) => `ORG#${orgId}#FP#${testId}`;
  return {
    async get(testId) {
      const items = await queryAll(table, { pk: pk(testId), skPrefix: 'STEP#' });
      return Object.fromEntries(items.map((i) => [Number(i.step), i.fingerprint as Fingerprint]));
    },
    async save(testId, fingerprints) {
      const at = now().toISOString();
      for (const [step, fingerprint] of Object.entries(fingerprints)) {
        await table.put({ pk: pk(testId), sk: `STEP#${String(step).padStart(4, '0')}`, entity: 'fingerprint', step: Number(step), fingerprint, updated_at: at });
      }
    },
  };
}
