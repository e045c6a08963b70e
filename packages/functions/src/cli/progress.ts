import type { ProgressEvent } from '@svc/core/execution/run-suite';
import { retriesOf } from '@svc/core/reporting/format';

/**
 * Progress for `svc run`: on a TTY, coloured marks and a live counter line; otherwise
 * plain lines that read well in CI logs. The total is the event's own (a resumed run
 * learns its tests from its checkpoints), else the one given.
 */
export function progressPrinter(out: NodeJS.WriteStream, total: number) {
  const tty = !!out.isTTY;
  const colour = (code: number, s: string) => (tty ? `\x1b[${code}m${s}\x1b[0m` : s);
  let running = 0;
  return (event: ProgressEvent) => {
    if (event.type === 'test_start') {
      running++;
      if (tty) out.write(`\r\x1b[2K  running ${running} … ${event.name}`);
      return;
    }
    if (event.type !== 'test_end') return;
    running = Math.max(0, running - 1);
    const r = event.result;
    const mark = r.status === 'passed' ? colour(32, '✓') : r.status === 'healed' ? colour(36, '✚') : r.status === 'skipped' ? colour(33, '-') : colour(31, '✗');
    // A pass after failed attempts is flaky: said here too, not only in the reports.
    const retries = retriesOf(r);
    const flaky = retries ? `, flaky: passed on attempt ${retries + 1}` : '';
    const line = `${tty ? '\r\x1b[2K' : ''}${mark} [${event.done}/${event.total || total}] ${r.name} (${r.duration_ms} ms${flaky})${r.error_message ? `\n    ${r.error_message.replace(/\n/g, '\n    ')}` : ''}\n`;
    out.write(tty ? line : line.replace(/✓/, 'PASS').replace(/✗/, 'FAIL').replace(/✚/, 'HEALED').replace(/^-/, 'SKIP'));
  };
}
