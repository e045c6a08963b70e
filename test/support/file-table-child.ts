/**
 * Runs in a child process for FileTable's crash and locking tests:
 *   write <dir>  writes forever, printing each write's number once its promise resolved
 *                (synchronously: the loop never yields to the event loop, so
 *                process.stdout's queued socket writes would never flush)
 *   open <dir>   tries to open the folder and prints "opened" or "error: <message>"
 */
import { writeSync } from 'node:fs';
import { FileTable } from '../../packages/functions/src/local/file-table.ts';

const [mode, dir] = process.argv.slice(2);

/** fd 1 is a non-blocking socket: spin on EAGAIN until the parent has drained it. */
function say(text: string): void {
  const buf = Buffer.from(text);
  let offset = 0;
  while (offset < buf.length) {
    try {
      offset += writeSync(1, buf, offset);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EAGAIN') throw err;
    }
  }
}

if (mode === 'open') {
  try {
    const table = await FileTable.open(dir);
    say('opened\n');
    await table.close();
  } catch (err) {
    say(`error: ${(err as Error).message}\n`);
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
    say(`${i}\n`);
  }
} else {
  throw new Error(`unknown mode ${mode}`);
}
