import { createHmac } from 'node:crypto';
import type { NotificationEvent } from '../contracts/notification.ts';
import type { OutcomeCompare } from '../reporting/outcome-comparison-text.ts';

/** What a notification says about a run. */
export interface RunNotice {
  event: NotificationEvent | 'test';
  organization_id: string;
  project: { id: string; name: string };
  run: { id: string; status: string; trigger: string; started_at: string | null; completed_at: string | null; total: number; passed: number; failed: number; error: string | null };
  /** At most 10, in plan order. */
  failed_tests: Array<{ test_id: string; name: string; error: string | null }>;
  /** Against the project's previous finished run; none for its first run or when it could not be read. */
  compare?: { counts: OutcomeCompare; line: string };
}

const HEADLINE: Record<RunNotice['event'], string> = {
  run_failed: 'failed',
  run_recovered: 'passed again',
  run_passed: 'passed',
  test: 'test message',
};

/** One line a person reads first: what happened, where, how much. */
export function headline(n: RunNotice): string {
  if (n.event === 'test') return `svc: test message for ${n.project.name} — this channel works`;
  const counts = n.run.failed ? `${n.run.failed} of ${n.run.total} tests failed` : `${n.run.passed} of ${n.run.total} tests passed`;
  return `svc: ${n.project.name} ${HEADLINE[n.event]} — ${counts} (${n.run.trigger} run ${n.run.id.slice(0, 8)})`;
}

/** A Slack incoming-webhook message (also what Mattermost and Rocket.Chat take): text, and blocks for clients that show them. */
export function slackMessage(n: RunNotice): Record<string, unknown> {
  const lines = n.failed_tests.map((t) => `• *${escape(t.name)}*${t.error ? `: ${escape(t.error.slice(0, 200))}` : ''}`);
  const more = n.run.failed > n.failed_tests.length ? [`…and ${n.run.failed - n.failed_tests.length} more`] : [];
  const blocks: unknown[] = [{ type: 'section', text: { type: 'mrkdwn', text: escape(headline(n)) } }];
  if (n.compare) blocks.push({ type: 'section', text: { type: 'mrkdwn', text: escape(n.compare.line) } });
  if (n.run.error) blocks.push({ type: 'section', text: { type: 'mrkdwn', text: `Run error: ${escape(n.run.error.slice(0, 500))}` } });
  if (lines.length) blocks.push({ type: 'section', text: { type: 'mrkdwn', text: [...lines, ...more].join('\n') } });
  blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: `run \`${n.run.id}\` · project \`${n.project.id}\`` }] });
  // The comparison is in the text too: it is what a client shows in its notification.
  return { text: n.compare ? `${headline(n)}\n${escape(n.compare.line)}` : headline(n), blocks };
}

/** Slack's mrkdwn reserves &, < and > (links and mentions): a test name must not ping @channel. */
export function escape(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** The JSON a webhook channel receives; `compare` only when there is a previous run to compare with. */
export function webhookPayload(n: RunNotice, deliveryId: string, sentAt: Date): Record<string, unknown> {
  return { id: deliveryId, event: n.event, sent_at: sentAt.toISOString(), organization_id: n.organization_id, project: n.project, run: n.run, failed_tests: n.failed_tests, ...(n.compare ? { compare: n.compare.counts } : {}) };
}

/**
 * `X-Svc-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">` with the
 * channel's secret. The timestamp inside the signed text lets a receiver refuse replays.
 */
export function signature(secret: string, body: string, at: Date): string {
  const t = Math.floor(at.getTime() / 1000);
  return `t=${t},v1=${createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')}`;
}
