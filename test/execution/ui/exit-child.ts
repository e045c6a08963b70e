// Child process for driver.test.ts: launches a browser, prints the pids of its process
// tree (browser first), and exits without calling close().
import { execFileSync } from 'node:child_process';
import { createPlaywrightDriver } from '../../../packages/functions/src/execution/browser/playwright-driver.ts';

const driver = await createPlaywrightDriver({});
const session = await driver.openSession({ trace: false });
await session.page.setContent('<h1>about to exit</h1>');
const root = driver.browserPid()!;
const parents = new Map<number, number>();
for (const line of execFileSync('ps', ['-eo', 'pid=,ppid='], { encoding: 'utf8' }).trim().split('\n')) {
  const [pid, ppid] = line.trim().split(/\s+/).map(Number);
  parents.set(pid, ppid);
}
const isDescendant = (pid: number): boolean => pid === root || (parents.has(pid) && parents.get(pid) !== pid && parents.get(pid)! > 1 && isDescendant(parents.get(pid)!));
const tree = [root, ...[...parents.keys()].filter((p) => p !== root && isDescendant(p))];
process.stdout.write(`${tree.join(' ')}\n`);
process.exit(0);
