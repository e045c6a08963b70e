/**
 * The behaviour every Table adapter must show. Each adapter's test file calls
 * tableConformance() with a factory; each test gets a fresh, empty table, so tests
 * never see each other's items. The cases live in ./cases/, grouped by concern.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Table } from '@svc/core/ports/table';
import { readCases } from './cases/reads.ts';
import { ttlAndTransactionCases } from './cases/ttl-transactions.ts';
import { writeCases } from './cases/writes.ts';

export interface TableFixture {
  table: Table;
  cleanup(): Promise<void>;
}

export function tableConformance(name: string, make: () => Promise<TableFixture>): void {
  describe(`Table conformance: ${name}`, () => {
    let fixture: TableFixture | undefined;

    beforeEach(async () => {
      fixture = await make();
    });
    afterEach(async () => {
      await fixture?.cleanup();
      fixture = undefined;
    });

    const current = (): Table => {
      if (!fixture) throw new Error('no table: the fixture factory failed');
      return fixture.table;
    };

    writeCases(current);
    readCases(current);
    ttlAndTransactionCases(current);

    it('reports health', async () => {
      expect(await current().health()).toEqual({ status: 'ok' });
    });
  });
}
