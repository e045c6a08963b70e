import type { Table } from '../ports/table.ts';
import type { Fingerprint } from '../contracts/fingerprint.ts';
import type { FingerprintStore } from '../execution/fingerprint-store.ts';
import { queryAll } from './context.ts';

/**
 * Fingerprints in the table, one item per test step (and per field of an extract step:
 * `STEP#0003#FIELD#total`), under the organization's partition family.
 */
export function tableFingerprintStore(table: Table, orgId: string, now: () => Date = () => new Date()): FingerprintStore {
  const pk = (testId: string) => `ORG#${orgId}#FP#${testId}`;
  return {
    async get(testId) {
      const items = await queryAll(table, { pk: pk(testId), skPrefix: 'STEP#' });
      return Object.fromEntries(items.map((i) => [typeof i.field === 'string' ? `${Number(i.step)}.${i.field}` : String(Number(i.step)), i.fingerprint as Fingerprint]));
    },
    async save(testId, fingerprints) {
      const at = now().toISOString();
      for (const [key, fingerprint] of Object.entries(fingerprints)) {
        const dot = key.indexOf('.');
        const step = Number(dot < 0 ? key : key.slice(0, dot));
        const field = dot < 0 ? undefined : key.slice(dot + 1);
        const sk = `STEP#${String(step).padStart(4, '0')}${field === undefined ? '' : `#FIELD#${field}`}`;
        await table.put({ pk: pk(testId), sk, entity: 'fingerprint', step, ...(field !== undefined && { field }), fingerprint, updated_at: at });
      }
    },
  };
}
