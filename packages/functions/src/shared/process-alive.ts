import { readFileSync } from 'node:fs';

/**
 * Whether a process is running. Signal 0 says only that the pid exists, and a zombie — a
 * process that has exited and that its parent has not waited for yet — exists: right after
 * a `kill -9`, where nothing reaps quickly (PID 1 in some containers), a lock held by the
 * dead process read as held by a live one (noted by QA). On Linux, /proc says which.
 */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'; // exists, owned by someone else
  }
  return !isZombie(pid);
}

function isZombie(pid: number): boolean {
  try {
    // "pid (comm) S …": the state follows the command name, which may itself hold spaces or parentheses.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) === 'Z';
  } catch {
    return false; // no /proc (not Linux), or the process went meanwhile: signal 0 decided
  }
}
