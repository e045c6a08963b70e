import { execFile } from 'node:child_process';
import { join } from 'node:path';

/** The `svc` command as a user's shell finds it after `npm ci`. */
export const svcBin = join(import.meta.dirname, '..', '..', '..', 'node_modules', '.bin', 'svc');

/** Runs `svc <args>` in `cwd`; resolves with its exit code and output (never rejects on a non-zero exit). */
export function runSvc(args: string[], o: { cwd: string; timeoutMs?: number; env?: NodeJS.ProcessEnv }): Promise<{ code: number; stdout: string; stderr: string; output: string }> {
  return new Promise((resolve) => {
    execFile(svcBin, args, { cwd: o.cwd, timeout: o.timeoutMs ?? 120_000, ...(o.env && { env: o.env }) }, (err, stdout, stderr) =>
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr, output: stdout + stderr }));
  });
}
