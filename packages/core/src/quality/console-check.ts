import type { AuditFinding, QualityAuditReport } from '../contracts/quality-audit.ts';
import type { PageObservation } from './page-probe.ts';

type ConsoleSection = NonNullable<QualityAuditReport['console']>;

/** Console errors and uncaught exceptions, requests that failed or answered 4xx/5xx, during the load. */
export function checkConsole(o: PageObservation): { section: ConsoleSection; findings: AuditFinding[] } {
  const findings: AuditFinding[] = [];
  const add = (f: Omit<AuditFinding, 'check'>) => findings.push({ check: 'console', ...f });
  const failed = o.requests.filter((r) => r.failure !== undefined || (r.status !== null && r.status >= 400));
  const uncaught = o.console_errors.filter((e) => e.startsWith('Uncaught '));
  const logged = o.console_errors.filter((e) => !e.startsWith('Uncaught '));
  if (uncaught.length) add({ id: 'uncaught-exception', severity: 'high', title: `${uncaught.length} uncaught exception${uncaught.length === 1 ? '' : 's'} while loading`, fix: 'Fix the script error; part of the page may not work', targets: uncaught.slice(0, 20) });
  if (logged.length) add({ id: 'console-error', severity: 'medium', title: `${logged.length} console error${logged.length === 1 ? '' : 's'} while loading`, targets: logged.slice(0, 20) });
  const network = failed.filter((r) => r.failure !== undefined);
  const http = failed.filter((r) => r.failure === undefined && r.resource_type !== 'document');
  if (network.length) add({ id: 'request-failed', severity: 'medium', title: `${network.length} request${network.length === 1 ? '' : 's'} failed`, targets: network.slice(0, 20).map((r) => `${r.url} (${r.failure})`) });
  if (http.length) add({ id: 'request-error-status', severity: http.some((r) => (r.status ?? 0) >= 500) ? 'medium' : 'low', title: `${http.length} request${http.length === 1 ? '' : 's'} answered with an error status`, fix: 'Remove or fix references to missing resources', targets: http.slice(0, 20).map((r) => `${r.url} (${r.status})`) });
  if (o.status !== null && o.status >= 400) add({ id: 'page-error-status', severity: 'high', title: `The page itself answered ${o.status}`, targets: [o.final_url] });
  return {
    section: { errors: o.console_errors.slice(0, 100), failed_requests: failed.slice(0, 100).map((r) => ({ url: r.url, status: r.status, failure: r.failure ?? null })) },
    findings,
  };
}
