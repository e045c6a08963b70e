/**
 * Where a run can be seen, for what svc says outside itself (commit statuses, chat
 * outcomes, automation answers and callbacks): absolute under the public URL
 * (SVC_PUBLIC_URL) when one is configured.
 */
const base = (publicUrl: string) => publicUrl.replace(/\/+$/, '');

/** The run's HTML report at the public URL; none configured: undefined (no link). */
export const publicReportUrl = (publicUrl: string | undefined, runId: string) => (publicUrl ? `${base(publicUrl)}/api/reports/${runId}?format=html` : undefined);

/** The run's status and report: absolute with a public URL, else paths on the server that answered. */
export function runLinks(publicUrl: string | undefined, runId: string) {
  const prefix = publicUrl ? base(publicUrl) : '';
  return { status: `${prefix}/api/v1/test/status/${runId}`, report: `${prefix}/api/reports/${runId}?format=html` };
}
