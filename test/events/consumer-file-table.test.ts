import { FileTable } from '../../packages/functions/src/local/file-table.ts';
import { consumerSuite } from './consumer.suite.ts';

consumerSuite('FileTable (in memory)', async (clock) => ({ table: new FileTable(undefined, { clock }), cleanup: async () => {} }));
