/**
 * Bad usage of a command: the problem, then where its options are — not the whole help
 * after it, under which the one line that matters was easy to miss. Exit code 2.
 */
export function usageError(command: string, message: string): number {
  process.stderr.write(`svc ${command}: ${message}\nRun "svc ${command} --help" for its options.\n`);
  return 2;
}
