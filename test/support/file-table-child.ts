/**
 * Runs in a child process for FileTable's crash and locking tests:
 *   write <dir>  writes forever, printing each write's number once its promise resolved
 *                (stdout to a pipe is synchronous on Linux, so a printed number is acknowledged)
 *   open <dir>   tries to open the folder and prints "opened" or "error: <message>"
 */
import { FileTable } from '../../packages/functions/src/local/file-table.ts';

const [mode, dir] = process.argv.slice(2);

if (mode === 'open') {
  try {
    const table = await FileTable.open(dir);
    process.stdout.write('opened\n');
    await table.close();
  } catch (err) {
    process.stdout.write(`error: ${(err as Error).message}\n`);
  }
} else if (mode === 'write') {
  // A small compaction threshold so the kill can also land during a compaction.
  const table = await FileTable.open(dir, { compactBytes: 16 * 1024 });
  for (let i = 0; ; i++) {
    const sk = String(i).padStart(8, '0');
    if (i % 10 === 9) {
      // Transactions journal as one line too: both items or neither.
      await table.transact([
        { type: 'put', item: { pk: 'W', sk, i } },
        { type: 'put', item: { pk: 'T', sk, i } },
      ]);
    } else {
      await table.put({ pk: 'W', sk, i, pad: 'x'.repeat(100) });
    }
    process.stdout.write(`${i}\n`);
  }
} else {
  throw new Error(`unknown mode ${mode}`);
}
