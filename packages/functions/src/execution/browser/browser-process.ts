import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * Finds the browser's main process: a direct child of this Node process whose command
 * line carries the driver's unique marker switch. Playwright's Browser does not expose the
 * process of a launched browser, and we need its pid to guarantee no zombie Chromium.
 */
export async function findBrowserPid(marker: string): Promise<number | undefined> {
  try {
    const { stdout } = await run('ps', ['-eo', 'pid=,ppid=,args='], { maxBuffer: 16 * 1024 * 1024 });
    for (const line of stdout.split('\n')) {
      const m = /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(line);
      if (m && Number(m[2]) === process.pid && m[3].includes(marker) && !m[3].includes('--type=')) return Number(m[1]);
    }
  } catch {
    // no ps: we cannot find the pid; browser.close() alone must do
  }
  return undefined;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/**
 * SIGKILLs the browser and its process group. Playwright starts the browser detached, so
 * it leads its own group and renderers/GPU helpers are in it.
 */
export function killBrowser(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // not a group leader, or already gone
  }
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/** Resolves true once the pid is gone (Node reaps its own children), false after timeoutMs. */
export async function waitForExit(pid: number, timeoutMs: number): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  while (alive(pid)) {
    if (Date.now() >= until) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
  return true;
}
